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
        strata: strata, sqlite: .measured(sqlite),
        best: SQLiteBest(.sameAsRecords, how: "no index beyond the primary key: the smallest file (the records side's figure)"))

    /// `StrataFixtures.todoStore(for: run)` (built by inserting every item in one save,
    /// checkpointing and closing), and returns `Files.totalSize(of:)` of the store directory,
    /// in bytes: the snapshot, the (empty) log segment the checkpoint started, the lock file
    /// and the last recovery report.
    static func strata(_ run: RunContext) async throws -> Double {
        let directory = try await StrataFixtures.todoStore(for: run)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        log("strata store files: " + files.map { name in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            return "\(name) \(grouped(attributes?[.size] as? Int ?? 0)) B"
        }.joined(separator: ", "))
        return Double(try Files.totalSize(of: directory))
    }
}
