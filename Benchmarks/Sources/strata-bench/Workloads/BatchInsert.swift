import Foundation
import Strata

/// Issue 8, item 2: a batch insert of every to-do item, against the same GRDB figure as item 1.
/// Target: ≤ 0.3× (issue 6).
enum BatchInsert {
    static let workload = Workload(
        name: "batch-insert", item: 2,
        summary: "batch insert N to-do items | GRDB records in one transaction (item 1's figure)",
        unit: .seconds, target: .ratioAtMost(0.3),
        strata: strata, sqlite: .sameAs(ContextInsert.workload.name))

    /// **To fill in.** Open a new store in `run.directory` and time one batch insert request
    /// of `run.dataset.todoItems` (durable on return). Returns seconds.
    static func strata(_ run: RunContext) async throws -> Double {
        throw StrataPending("BatchInsertRequest")
    }
}
