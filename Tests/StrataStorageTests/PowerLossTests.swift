import Testing
import StrataTestSupport
@testable import StrataStorage

/// Crash-point tests through the simulated file system.
///
/// Knobs: `STRATA_CRASH_POINTS` (default 10,000 power-loss points),
/// `STRATA_FAULT_POINTS` (default 600 injected faults), `STRATA_SEED` (first seed).
@Suite struct PowerLossTests {
    struct Outcome {
        var attempted: [[UInt8]] = []
        var acknowledged = 0
    }

    /// Runs a random workload of appends and checkpoints until it ends or the file system
    /// fails; returns what was attempted and how much of it was acknowledged.
    static func runWorkload(_ fs: SimulatedFileSystem, seed: UInt64, durability: Durability = .always,
                            stopAtFirstError: Bool = true, cipher: (any StoreCipher)? = nil) -> Outcome {
        var rng = SplitMix64(seed: seed)
        var outcome = Outcome()
        let options = LogFixture.options(fs, durability: durability, segmentSize: 1024 + Int64(rng.next() % 4096), cipher: cipher)
        guard let (engine, recovered) = try? StorageEngine.open(at: LogFixture.directory, options: options),
              let initial = try? PayloadListState.load(recovered) else { return outcome }
        outcome.attempted = initial
        outcome.acknowledged = initial.count
        let operations = 5 + Int(rng.next() % 25)
        for _ in 0..<operations {
            if rng.next() % 10 == 0 {
                do { try PayloadListState.checkpoint(engine, state: Array(outcome.attempted.prefix(outcome.acknowledged))) }
                catch { if stopAtFirstError { return outcome } }
                continue
            }
            let size = [0, 1, 17, 300, 1500, 4000][Int(rng.next() % 6)]
            let payload = (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next() % 7) }
            outcome.attempted.append(payload)
            do {
                _ = try engine.append(kind: 1, payload: payload)
                outcome.acknowledged = outcome.attempted.count
            } catch {
                if stopAtFirstError { return outcome }
                outcome.attempted.removeLast()
            }
        }
        try? engine.close()
        return outcome
    }

    /// Checks that `fs` reopens (writable, strict) to a prefix of `outcome.attempted` that
    /// holds every acknowledged transaction, then that it accepts and keeps a new append.
    ///
    /// With `failedSavesAbsent`, the append that threw (the process lived to see the error)
    /// must not be there either: the state is exactly the acknowledged transactions.
    static func checkRecovery(_ fs: SimulatedFileSystem, _ outcome: Outcome, context: String,
                              failedSavesAbsent: Bool = false, cipher: (any StoreCipher)? = nil) {
        do {
            let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, cipher: cipher))
            let state = try PayloadListState.load(recovered)
            #expect(state.count >= outcome.acknowledged, "\(context): lost acknowledged transactions (\(state.count) < \(outcome.acknowledged))")
            if failedSavesAbsent {
                #expect(state.count == outcome.acknowledged, "\(context): a save that failed is in the store (\(state.count) > \(outcome.acknowledged))")
            }
            #expect(Array(outcome.attempted.prefix(state.count)) == state, "\(context): state is not a prefix of the history")
            _ = try engine.append(kind: 1, payload: [0xAB])
            try engine.close()
            let (_, again) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, cipher: cipher))
            #expect(try PayloadListState.load(again) == state + [[0xAB]], "\(context): append after recovery lost")
        } catch {
            Issue.record("\(context): recovery failed: \(error)")
        }
    }

    /// The encrypted run takes its own knob, `STRATA_ENCRYPTED_CRASH_POINTS` (default 2,000).
    @Test(arguments: [false, true])
    func powerLossAtEveryCrashPointKeepsAcknowledgedCommits(encrypted: Bool) {
        let points = encrypted ? testKnob("STRATA_ENCRYPTED_CRASH_POINTS", default: 2_000) : testKnob("STRATA_CRASH_POINTS", default: 10_000)
        let cipher = SweepCipher.cipher(encrypted)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        for point in 0..<points {
            let seed = base &+ UInt64(point)
            var rng = SplitMix64(seed: seed ^ 0xC0FFEE)
            let fs = SimulatedFileSystem()
            fs.crash(atCall: 1 + Int(rng.next() % 160))
            let outcome = Self.runWorkload(fs, seed: seed, cipher: cipher)
            Self.checkRecovery(fs.powerLossImage(seed: seed), outcome, context: "power loss\(encrypted ? " (encrypted)" : ""), seed \(seed) (STRATA_SEED=\(seed) STRATA_CRASH_POINTS=1 replays it)", cipher: cipher)
        }
        print("power loss\(encrypted ? " (encrypted)" : ""): \(points) crash points checked")
    }

    @Test func processCrashLosesNothingEvenWithoutSync() {
        for seed in UInt64(1)...300 {
            var rng = SplitMix64(seed: seed)
            let fs = SimulatedFileSystem()
            fs.crash(atCall: 1 + Int(rng.next() % 160))
            let outcome = Self.runWorkload(fs, seed: seed, durability: .never)
            let image = fs.processCrashImage()
            do {
                let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image))
                let state = try PayloadListState.load(recovered)
                #expect(state.count >= outcome.acknowledged && Array(outcome.attempted.prefix(state.count)) == state, "seed \(seed)")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    @Test(arguments: [false, true])
    func faultAtTheNthCallMakesTheStoreReadOnlyAndLosesNothing(encrypted: Bool) {
        let points = testKnob("STRATA_FAULT_POINTS", default: 600)
        let cipher = SweepCipher.cipher(encrypted)
        for n in 1...points {
            let seed = UInt64(n)
            let fs = SimulatedFileSystem()
            fs.shortWrites = n % 3 == 0
            fs.injectFault(atCall: 1 + (n * 7) % 150, errno: n % 2 == 0 ? 28 /* ENOSPC */ : 5 /* EIO */)
            let outcome = Self.runWorkload(fs, seed: seed, cipher: cipher)
            // After the fault the engine refuses writes until reopened; the one-shot fault is
            // gone, so the same disk must now reopen with every acknowledged commit.
            Self.checkRecovery(fs.processCrashImage(), outcome, context: "fault at call \(1 + (n * 7) % 150), seed \(seed)", failedSavesAbsent: true, cipher: cipher)
            Self.checkRecovery(fs.powerLossImage(seed: seed), outcome, context: "fault then power loss, seed \(seed)", failedSavesAbsent: true, cipher: cipher)
            Self.checkRecovery(fs.processCrashImage().powerLossImage(seed: seed &+ 1), outcome,
                               context: "fault, process crash, then power loss, seed \(seed)", failedSavesAbsent: true, cipher: cipher)
        }
    }

    @Test func writeErrorTurnsTheEngineReadOnly() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        _ = try engine.append(kind: 1, payload: [1])
        fs.injectFault(atCall: fs.callCount + 2, errno: 28) // the sync of the next append
        let first = #expect(throws: StorageError.self) { _ = try engine.append(kind: 1, payload: [2]) }
        #expect(first?.code == .diskFull)
        #expect(first?.message.contains("read-only") == true)
        // No retry of the failed fsync is ever reported as success.
        let second = #expect(throws: StorageError.self) { _ = try engine.append(kind: 1, payload: [3]) }
        #expect(second?.code == .diskFull)
        #expect(engine.failure != nil)
    }
}
