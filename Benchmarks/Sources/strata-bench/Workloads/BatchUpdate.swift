import Foundation
import Strata

/// Issue 8, item 3: set `done = true` on every to-do item with a batch update, against SQL's
/// `UPDATE todo SET done = 1`. Target: ≤ 0.1× (issue 6).
enum BatchUpdate {
    static let workload = Workload(
        name: "batch-update", item: 3,
        summary: "batch update done = true on all N items | UPDATE todo SET done = 1",
        unit: .seconds, target: .ratioAtMost(0.1),
        strata: strata, sqlite: .measured(sqlite))

    /// **To fill in.** `let store = try await StrataFixtures.todoStore(for: run)`, open it
    /// (not timed), then time one batch update request setting `done = true` on every
    /// `TodoItem` (durable on return). Returns seconds.
    static func strata(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.todoStore(for: run)
        throw StrataPending("BatchUpdateRequest")
    }
}
