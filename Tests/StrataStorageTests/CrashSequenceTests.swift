import Testing
import StrataTestSupport
@testable import StrataStorage

/// Sequences of failures that a single crash point does not reach (issue 15): a process
/// crash, recovery and new acknowledged appends, then a power loss; and read-only opens
/// racing a writer's rotations and checkpoints.
///
/// Knobs: `STRATA_SEQUENCE_POINTS` (crash points, default 400), `STRATA_SEED`.
@Suite struct CrashSequenceTests {
    @Test func processCrashThenRecoveryThenAppendsThenPowerLoss() {
        let points = testKnob("STRATA_SEQUENCE_POINTS", default: 400)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        var checked = 0
        for point in 0..<points {
            let seed = base &+ UInt64(point)
            var rng = SplitMix64(seed: seed ^ 0x5EC0)
            let fs = SimulatedFileSystem()
            fs.crash(atCall: 1 + Int(rng.next() % 160))
            let durability: Durability = [.always, .never][Int(rng.next() % 2)]
            let first = PowerLossTests.runWorkload(fs, seed: seed, durability: durability)
            let context = "seed \(seed), \(durability) (STRATA_SEED=\(seed) STRATA_SEQUENCE_POINTS=1 replays it)"
            // The process died; a new one recovers the disk as it was and appends (.always).
            let crashed = fs.processCrashImage()
            var recovered: [[UInt8]] = []
            var appended: [[UInt8]] = []
            do {
                let (engine, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(crashed, segmentSize: 2048))
                recovered = try PayloadListState.load(state)
                #expect(recovered.count >= first.acknowledged && Array(first.attempted.prefix(recovered.count)) == recovered, "\(context): first recovery")
                // Sometimes none: what an open recovered must survive a power loss by itself.
                for i in 0..<Int(rng.next() % 8) {
                    let payload = (0..<Int(rng.next() % 700)).map { UInt8(truncatingIfNeeded: $0 &+ i) }
                    _ = try engine.append(kind: 1, payload: payload)
                    appended.append(payload)
                }
                // No close: the power goes out with the engine still open.
            } catch {
                Issue.record("\(context): recovery after the process crash failed: \(error)")
                continue
            }
            for loss in 0..<3 {
                let image = crashed.powerLossImage(seed: seed &* 31 &+ UInt64(loss))
                do {
                    let (_, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image))
                    let final = try PayloadListState.load(state)
                    // Everything acknowledged after recovery is durable, and with it whatever
                    // it was appended after (new frames vouch for what recovery read).
                    #expect(final == recovered + appended, "\(context), power loss \(loss): \(final.count) transactions, expected \(recovered.count) + \(appended.count)")
                } catch {
                    Issue.record("\(context), power loss \(loss): \(error)")
                }
                checked += 1
            }
        }
        print("crash sequences: \(points) crash points, \(checked) power losses after recovery checked")
    }

    /// A read-only open lists the directory, then a writer's checkpoint deletes segments it
    /// listed, before it reads them: it must list again and still see an exact prefix.
    @Test(arguments: [1, 2, 4])
    func readOnlyOpenRacingCheckpointsSeesAPrefix(checkpointsDuringOpen: Int) throws {
        let fs = SimulatedFileSystem()
        let (writer, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, segmentSize: 4096))
        let history = Locked<[[UInt8]]>([])
        @Sendable func commit(_ count: Int) throws {
            for _ in 0..<count {
                let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* history.withLock { $0.count }) }
                _ = try writer.append(kind: 1, payload: payload)
                history.withLock { $0.append(payload) }
            }
        }
        try commit(40)
        try PayloadListState.checkpoint(writer, state: history.withLock { $0 })
        try commit(40)
        // Between the reader's listing and its reads: more commits (rotations) and a checkpoint
        // that deletes the segments and the snapshot the reader listed.
        fs.afterNext("opendir", times: checkpointsDuringOpen) {
            do {
                try commit(25)
                try PayloadListState.checkpoint(writer, state: history.withLock { $0 })
            } catch {
                Issue.record("writer: \(error)")
            }
        }
        let (_, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, readOnly: true))
        let seen = try PayloadListState.load(state)
        let all = history.withLock { $0 }
        #expect(seen.count >= 80 && Array(all.prefix(seen.count)) == seen)
        try writer.close()
    }
}
