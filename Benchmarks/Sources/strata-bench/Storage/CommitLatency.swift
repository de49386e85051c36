import Foundation
import StrataStorage

/// Issue 2: one small (128-byte) `.always` commit at a time on one thread, p50 latency,
/// against one 4 KiB append + fdatasync measured in the same run. Target: ≤ 2×.
enum CommitLatency {
    static let maximumCommits = 2_000
    static let timeBudget = 3.0

    static let benchmark = StorageBenchmark(
        name: "commit-p50",
        summary: "one 128-byte .always append at a time, one thread: p50 latency",
        unit: .seconds, target: .fdatasyncMultipleAtMost(2), limit: .fdatasyncP50,
        measure: measure)

    static func measure(_ run: RunContext) async throws -> Double {
        let payloads = (0..<maximumCommits).map(StorageFixtures.smallPayload)
        let engine = try StorageFixtures.openEngine(run)
        var latencies: [Double] = []
        let start = Stopwatch.now
        while latencies.count < maximumCommits, Stopwatch.seconds(since: start) < timeBudget {
            let payload = payloads[latencies.count]
            latencies.append(try Stopwatch.seconds {
                try engine.append(kind: StorageFixtures.kind, payload: payload)
            })
        }
        try engine.close()
        return Statistics.percentile(50, of: latencies)!
    }
}
