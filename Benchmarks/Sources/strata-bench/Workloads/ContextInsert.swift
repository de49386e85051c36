import Foundation
import Strata

/// Issue 8, item 1: insert every to-do item through one context and save once, against GRDB
/// inserting the same records in one transaction. Target: ≤ 1.0× (issue 3).
enum ContextInsert {
    static let workload = Workload(
        name: "insert", item: 1,
        summary: "insert N to-do items through one context + save | GRDB records in one transaction",
        unit: .seconds, target: .ratioAtMost(1.0),
        strata: strata, sqlite: .measured(sqlite),
        best: SQLiteBest(.measured(sqliteBest),
                         how: "one prepared \(bestSQL), bound/stepped/reset per row, one transaction"))

    /// Opens a new store in `run.directory` (not timed), then times inserting
    /// `run.dataset.todoItems` as `TodoItem` objects in one `ObjectContext` plus one `save()`
    /// (durable on return). Returns seconds.
    ///
    /// The context is made and released inside the timed part, so the time includes releasing
    /// every object it made, as the GRDB side's records are released in its time.
    ///
    /// Automatic checkpoints are off (``StrataFixtures/options``): the save would otherwise
    /// start a background checkpoint once it returns, outside the timed part but running on
    /// into the next run.
    static func strata(_ run: RunContext) async throws -> Double {
        let directory = run.directory.appendingPathComponent("strata").path
        let store = try PersistentStore.open(
            at: directory, schema: StrataFixtures.todoSchema, options: StrataFixtures.options)
        let items = run.dataset.todoItems
        let seconds = try Stopwatch.seconds {
            try StrataFixtures.insertAndSave(items, into: ObjectContext(store: store))
        }
        let count = StrataFixtures.todoCount(store)
        precondition(count == run.scale, "expected \(run.scale) items, found \(count)")
        try store.close()
        return seconds
    }
}
