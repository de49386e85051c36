import Foundation
import Strata

/// Issue 8, item 7: open the N-item to-do store and count its items, against opening the
/// SQLite file and counting. Target: ≤ 100 ms (issue 3).
enum OpenAndCount {
    static let workload = Workload(
        name: "open", item: 7,
        summary: "open the N-item store and count items | open the SQLite file + SELECT COUNT(*)",
        unit: .seconds, target: .ratioAtMost(1.0),
        strata: strata, sqlite: .measured(sqlite),
        best: SQLiteBest(.sameAsRecords, how: "open + SELECT COUNT(*) (the records side's figure)"))

    /// `StrataFixtures.todoStore(for: run)` (not timed), then times opening the store with
    /// the application's schema (recovery and loading the snapshot included) and counting the
    /// `TodoItem`s. Returns seconds.
    ///
    /// The count is `PersistentStore.rowCounts`, the store's own per-entity row count, not a
    /// count fetch request (those are measured by `predicate-count`).
    static func strata(_ run: RunContext) async throws -> Double {
        let directory = try await StrataFixtures.todoStore(for: run).path
        let (store, seconds) = try Stopwatch.time {
            let store = try PersistentStore.open(
                at: directory, schema: StrataFixtures.todoSchema, options: StrataFixtures.options)
            let count = StrataFixtures.todoCount(store)
            precondition(count == run.scale, "expected \(run.scale) items, found \(count)")
            return store
        }
        try store.close()
        return seconds
    }
}
