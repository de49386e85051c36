import Testing
import StrataTestSupport
@testable import Strata

/// Random sequences of edits, saves, rollbacks, batch requests, asynchronous fetches,
/// checkpoints, crashes and reopens, run against the store and a plain reference model.
///
/// Knobs: `STRATA_MODEL_SEQUENCES` (default 250 runs), `STRATA_MODEL_STEPS` (default 40
/// steps each), `STRATA_MODEL_SEED` (first seed; a failure prints the seed that replays it),
/// `STRATA_CHECK_INVARIANTS` (default 1: check invariants after every commit).
@Suite struct ModelBasedTests {
    @Test func storeAgreesWithTheModelThroughCrashes() throws {
        let sequences = testKnob("STRATA_MODEL_SEQUENCES", default: 250)
        let steps = testKnob("STRATA_MODEL_STEPS", default: 40)
        let base = UInt64(testKnob("STRATA_MODEL_SEED", default: 1))
        var total = ModelRunStatistics()
        for index in 0..<sequences {
            let seed = base &+ UInt64(index)
            let operations = ModelOperation.sequence(seed: seed, count: steps)
            let run = try ModelRun(seed: seed)
            do {
                try run.run(operations)
                total.add(run.statistics)
            } catch {
                let minimal = ModelOperation.shrink(operations) { candidate in
                    (try? ModelRun(seed: seed).run(candidate)) == nil
                }
                let replay = (try? ModelRun(seed: seed)).map { r -> String in
                    do { try r.run(minimal); return "(the shrunk run passes on its own)" } catch { return "\(error)" }
                } ?? ""
                Issue.record("""
                    Model-based run failed with seed \(seed): \(error)
                    Trace: \(run.trace.suffix(12).joined(separator: " | "))
                    Shrunk from \(operations.count) to \(minimal.count) steps: \(minimal)
                    Shrunk failure: \(replay)
                    Replay: STRATA_MODEL_SEED=\(seed) STRATA_MODEL_SEQUENCES=1 swift test --filter ModelBasedTests
                    """)
                return
            }
        }
        print("model-based: \(sequences) sequences, \(total.steps) steps, \(total.commits) commits, \(total.batchRequests) batch requests, \(total.asyncFetches) async fetches, \(total.checkpoints) checkpoints, \(total.powerLosses) power losses + \(total.processCrashes) process crashes (\(total.crashesDuringRecovery) crashed again in recovery, \(total.recoveredUncertainCommit) recovered an in-flight commit), \(total.invariantChecks) invariant checks")
    }
}
