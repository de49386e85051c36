import Foundation
import Strata

/// Issue 8, item 5: fetch every to-do item sorted by `createdAt` as faults, then read one
/// attribute (`name`) of each, against GRDB fetching the same records.
/// Target: ≤ 0.5× (issue 4).
enum SortedFetch {
    static let workload = Workload(
        name: "sorted-fetch", item: 5,
        summary: "fetch all N items sorted by createdAt as faults, read name of each | GRDB records",
        unit: .seconds, target: .ratioAtMost(0.5),
        strata: strata, sqlite: .measured(sqlite))

    /// **To fill in.** `StrataFixtures.todoStore(for: run)`, open it and make a context (not
    /// timed), then time a fetch of all `TodoItem`s sorted by `createdAt` as faults plus
    /// reading `name` from each. Returns seconds.
    static func strata(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.todoStore(for: run)
        throw StrataPending("FetchRequest with sort descriptors, faults")
    }
}
