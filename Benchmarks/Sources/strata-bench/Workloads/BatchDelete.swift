import Foundation
import Strata

/// Issue 8, item 6: delete half the to-do items (the even ids) with a batch delete, against
/// SQL's `DELETE`. Target: ≤ 0.2× (issue 6).
enum BatchDelete {
    static let workload = Workload(
        name: "batch-delete", item: 6,
        summary: "batch delete the N/2 items with even ids | DELETE FROM todo WHERE id % 2 = 0",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strata, sqlite: .measured(sqlite),
        best: SQLiteBest(.sameAsRecords, how: "DELETE FROM todo WHERE id % 2 = 0, one statement (the records side's figure)"))

    /// Copies and opens the to-do store (not timed), then times one `BatchDeleteRequest` of
    /// the `TodoItem`s with even primary keys (durable on return, `.always`). Returns seconds.
    ///
    /// The predicate language has no arithmetic on keys, so the request lists the even IDs;
    /// building that list is timed, as evaluating `id % 2 = 0` is on the SQLite side. The
    /// fixture's items have keys 1...N, the SQLite rows' ids, so both delete the same rows.
    /// Afterwards (not timed) it checks the number deleted and the number left.
    static func strata(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        let storeID = store.storeID, last = Int64(run.scale)
        let (deleted, seconds) = try Stopwatch.time {
            let even = stride(from: 2, through: last, by: 2).map {
                ObjectID(storeID: storeID, entityName: "TodoItem", primaryKey: $0)
            }
            var request = BatchDeleteRequest(objectIDs: even)
            request.resultType = .count
            return try store.execute(request).count
        }
        let expected = run.dataset.evenTodoCount
        precondition(deleted == expected, "batch delete reported \(deleted ?? -1) rows, expected \(expected)")
        let left = StrataFixtures.todoCount(store)
        precondition(left == run.scale - expected, "expected \(run.scale - expected) items left, found \(left)")
        try store.close()
        return seconds
    }
}
