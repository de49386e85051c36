import Foundation
import Strata

/// Issue 8, item 3: set `done = true` on every to-do item with a batch update, against SQL's
/// `UPDATE todo SET done = 1`. Target: ≤ 0.1× (issue 6).
enum BatchUpdate {
    static let workload = Workload(
        name: "batch-update", item: 3,
        summary: "batch update done = true on all N items | UPDATE todo SET done = 1",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strata, sqlite: .measured(sqlite),
        best: SQLiteBest(.sameAsRecords, how: "UPDATE todo SET done = 1, one statement (the records side's figure)"))

    /// Copies and opens the to-do store (not timed), then times one `BatchUpdateRequest`
    /// setting `done = true` on every `TodoItem`, with no predicate, as the SQL has none
    /// (durable on return, `.always`). Returns seconds.
    ///
    /// Afterwards (not timed) it checks that the request reported every item and that no
    /// item is left with `done == NO`.
    static func strata(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        let (updated, seconds) = try Stopwatch.time {
            var request = BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)])
            request.resultType = .count
            return try store.execute(request).count
        }
        precondition(updated == run.scale, "batch update reported \(updated ?? -1) rows, expected \(run.scale)")
        let context = ObjectContext(store: store)
        let undone = try context.performAndWait {
            try context.count(for: FetchRequest(entityName: "TodoItem", predicate: ObjectPredicate(format: "done == NO")))
        }
        precondition(undone == 0, "\(undone) items are still not done after the batch update")
        try store.close()
        return seconds
    }
}
