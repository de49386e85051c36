import Foundation

/// The outcome of one benchmark invocation: settings, machine limits and every workload's
/// figures. Printed as a table and written as JSON.
struct Report: Sendable {
    var command: String
    var date: Date
    var scale: Int
    var runs: Int
    var seed: UInt64
    var cores: Int
    var sqliteVersion: String
    var limits: MachineLimits?
    var results: [WorkloadResult]
    /// The storage engine's micro-benchmarks.
    var storageResults: [StorageResult] = []

    /// The line above the table.
    var headline: String {
        "strata-bench · scale \(grouped(scale)) · runs \(runs) (medians) · seed \(seed) · "
            + "SQLite \(sqliteVersion) via GRDB 7.10.0 · \(cores) cores"
    }
}
