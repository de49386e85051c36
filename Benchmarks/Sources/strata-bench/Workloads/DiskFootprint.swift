import Foundation
import Strata

/// Issue 8, item 9: bytes on disk for the N-item to-do store after a checkpoint, against the
/// SQLite file after `PRAGMA wal_checkpoint(TRUNCATE)`. Target: ≤ 0.5× (issue 2). The
/// figure is deterministic, so one run is enough.
enum DiskFootprint {
    static let workload = Workload(
        name: "disk-footprint", item: 9,
        summary: "bytes on disk, N items, after a checkpoint | SQLite files after wal_checkpoint(TRUNCATE)",
        unit: .bytes, target: .ratioAtMost(0.5), runs: 1,
        strata: strata, sqlite: .measured(sqlite))

    /// **To fill in.** `StrataFixtures.todoStore(for: run)` (built by inserting every item,
    /// then checkpointing), make sure it is checkpointed and closed, and return
    /// `Files.totalSize(of:)` of the store directory, in bytes.
    static func strata(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.todoStore(for: run)
        throw StrataPending("checkpoint")
    }
}
