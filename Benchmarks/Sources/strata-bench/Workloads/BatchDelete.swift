import Foundation
import Strata

/// Issue 8, item 6: delete half the to-do items (the even ids) with a batch delete, against
/// SQL's `DELETE`. Target: ≤ 0.2× (issue 6).
enum BatchDelete {
    static let workload = Workload(
        name: "batch-delete", item: 6,
        summary: "batch delete the N/2 items with even ids | DELETE FROM todo WHERE id % 2 = 0",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strata, sqlite: .measured(sqlite))

    /// **To fill in.** `StrataFixtures.todoStore(for: run)`, open it (not timed), then time
    /// one batch delete request of the `TodoItem`s with even primary keys (durable on
    /// return). Returns seconds.
    static func strata(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.todoStore(for: run)
        throw StrataPending("BatchDeleteRequest")
    }
}
