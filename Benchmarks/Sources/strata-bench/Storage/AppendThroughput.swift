import Foundation
import StrataStorage

/// Issue 2: appending large transactions — 256 × 1 MiB incompressible payloads, each one
/// `append` under `.always` — in MB/s, against the disk's sequential write + fsync speed
/// measured in the same run. Target: within 2×.
enum AppendThroughput {
    static let transactions = 256
    static let payloadSize = 1 << 20

    static let benchmark = StorageBenchmark(
        name: "append-1mib",
        summary: "append 256 × 1 MiB incompressible transactions, .always, one thread: MB/s",
        unit: .bytesPerSecond, target: .sequentialWriteWithin(2), limit: .sequentialWrite,
        measure: measure)

    /// The payloads, different from each other (so nothing can deduplicate them), made once.
    private static let payloads: [[UInt8]] = (0..<transactions).map {
        StorageFixtures.incompressibleBytes(payloadSize, seed: 0xA99E_0D00 &+ UInt64($0))
    }

    static func measure(_ run: RunContext) async throws -> Double {
        let payloads = Self.payloads
        let engine = try StorageFixtures.openEngine(run)
        let seconds = try Stopwatch.seconds {
            for payload in payloads { _ = try engine.append(kind: StorageFixtures.kind, payload: payload) }
        }
        try engine.close()
        return Double(transactions * payloadSize) / seconds
    }
}
