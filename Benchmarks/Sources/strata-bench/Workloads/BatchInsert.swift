import Foundation
import Strata

/// Issue 8, item 2: a batch insert of every to-do item, against the same GRDB figure as item 1.
/// Target: ≤ 0.3× (issue 6).
enum BatchInsert {
    static let workload = Workload(
        name: "batch-insert", item: 2,
        summary: "batch insert N to-do items, by position | GRDB records in one transaction (item 1's figure)",
        unit: .seconds, target: .ratioAtMost(0.5),
        strata: strata, sqlite: .sameAs(ContextInsert.workload.name),
        best: SQLiteBest(.sameAs(ContextInsert.workload.name), how: "insert's prepared statement (the same figure)"))

    /// Opens a new store in `run.directory` (not timed), then times building one
    /// `BatchInsertRequest` of `run.dataset.todoItems` and executing it (durable on return,
    /// `.always`). Returns seconds.
    ///
    /// Building the rows is timed because the GRDB side's figure includes encoding each record
    /// too. The request covers every item at once, as the GRDB side's one transaction does; in a
    /// new store the items get keys 1...N, the same ids as the SQLite rows.
    static func strata(_ run: RunContext) async throws -> Double {
        let directory = run.directory.appendingPathComponent("strata").path
        let store = try PersistentStore.open(
            at: directory, schema: StrataFixtures.todoSchema, options: StrataFixtures.options)
        let items = run.dataset.todoItems
        let (inserted, seconds) = try Stopwatch.time {
            try store.execute(request(for: items)).count
        }
        precondition(inserted == run.scale, "batch insert reported \(inserted ?? -1) rows, expected \(run.scale)")
        let count = StrataFixtures.todoCount(store)
        precondition(count == run.scale, "expected \(run.scale) items, found \(count)")
        try store.close()
        return seconds
    }

    /// One batch insert of `items` as `TodoItem` rows, counting them (`resultType = .count`).
    /// The rows are given by position (`properties:`), as the SQLite side binds its prepared
    /// statement's parameters; `strata-profile batch-insert-dictionary` times the same rows
    /// given as dictionaries (docs/PERFORMANCE.md has both).
    static func request(for items: [TodoItem]) -> BatchInsertRequest {
        var request = BatchInsertRequest(entityName: "TodoItem", properties: ["name", "createdAt", "done"],
                                         count: items.count) { index, values in
            let item = items[index]
            values[0] = .string(item.name)
            values[1] = .date(item.createdAt)
            values[2] = .bool(item.done)
        }
        request.resultType = .count
        return request
    }
}
