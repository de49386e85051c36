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
    /// Issue 23's encrypted ÷ plain figures (`--encryption`), with the test key.
    var encryptionResults: [EncryptionResult] = []
    /// The CPU's AES flags, read when `--encryption` runs.
    var aesFlags: [(flag: String, present: Bool)] = []

    /// The line above the table.
    var headline: String {
        "strata-bench · scale \(grouped(scale)) · runs \(runs) (medians) · seed \(seed) · "
            + "SQLite \(sqliteVersion) via GRDB 7.10.0 · \(cores) cores"
    }
}
