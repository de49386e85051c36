import Foundation
import StrataStorage

/// Issue 2: 8 threads appending small (128-byte) `.always` transactions concurrently on one
/// engine, commits per second; printed against what one thread could do with one sync per
/// commit (1 ÷ fdatasync p50). Target: ≥ 10,000/s.
enum GroupCommit {
    static let committers = 8
    static let maximumCommits = 40_000
    static let timeBudget = 3.0

    static let benchmark = StorageBenchmark(
        name: "group-commit-8",
        summary: "8 threads appending 128-byte .always transactions on one engine: commits/s",
        unit: .perSecond, target: .atLeast(10_000), limit: .serialSyncRate,
        measure: measure)

    static func measure(_ run: RunContext) async throws -> Double {
        let payloads = (0..<1_024).map(StorageFixtures.smallPayload)
        let engine = try StorageFixtures.openEngine(run)
        let tickets = TicketCounter()
        let start = Stopwatch.now
        let committed = try onThreads(committers) { _ in
            var mine = 0
            while Stopwatch.seconds(since: start) < timeBudget {
                let index = tickets.take()
                guard index < maximumCommits else { break }
                _ = try engine.append(kind: StorageFixtures.kind, payload: payloads[index % payloads.count])
                mine += 1
            }
            return mine
        }
        let seconds = Stopwatch.seconds(since: start)
        try engine.close()
        return Double(committed.reduce(0, +)) / seconds
    }
}
