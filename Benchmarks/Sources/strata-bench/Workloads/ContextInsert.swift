import Foundation
import Strata

/// Issue 8, item 1: insert every to-do item through one context and save once, against GRDB
/// inserting the same records in one transaction. Target: ≤ 1.0× (issue 3).
enum ContextInsert {
    static let workload = Workload(
        name: "insert", item: 1,
        summary: "insert N to-do items through one context + save | GRDB records in one transaction",
        unit: .seconds, target: .ratioAtMost(1.0),
        strata: strata, sqlite: .measured(sqlite))

    /// **To fill in.** Open a new store in `run.directory`, insert `run.dataset.todoItems` as
    /// `TodoItem` objects in one `ObjectContext`, and time the inserts plus one `save()`
    /// (durable on return). Returns seconds.
    static func strata(_ run: RunContext) async throws -> Double {
        throw StrataPending("ObjectContext insert and save")
    }
}
