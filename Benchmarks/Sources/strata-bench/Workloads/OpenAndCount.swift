import Foundation
import Strata

/// Issue 8, item 7: open the N-item to-do store and count its items, against opening the
/// SQLite file and counting. Target: ≤ 100 ms (issue 3).
enum OpenAndCount {
    static let workload = Workload(
        name: "open", item: 7,
        summary: "open the N-item store and count items | open the SQLite file + SELECT COUNT(*)",
        unit: .seconds, target: .atMost(0.100),
        strata: strata, sqlite: .measured(sqlite))

    /// **To fill in.** `StrataFixtures.todoStore(for: run)` (not timed), then time opening
    /// the store (recovery included) and counting the `TodoItem`s. Returns seconds.
    static func strata(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.todoStore(for: run)
        throw StrataPending("opening a store, count fetch")
    }
}
