import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 2: an I/O fault at the Nth file-system call *while recovery itself runs* — listing
/// the directory, reading the snapshot and the segments, truncating and syncing a torn tail,
/// opening the next segment. `PowerLossTests` injects faults into a run that starts from an
/// empty store; here the store on disk already holds a snapshot, several segments and a torn
/// final frame, so every call of a real recovery gets its turn to fail.
@Suite struct RecoveryFaultTests {
    /// A store with a snapshot, rotated segments after it, and a final frame cut in half,
    /// plus the transactions a clean recovery must return (every whole one, in order).
    static func tornStore() throws -> (fs: SimulatedFileSystem, expected: [[UInt8]]) {
        let fs = SimulatedFileSystem()
        let options = LogFixture.options(fs, segmentSize: 1536)
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: options)
        var state: [[UInt8]] = []
        let payloads = LogFixture.variedPayloads(count: 40, seed: 7)
        for (i, payload) in payloads.enumerated() {
            _ = try engine.append(kind: 1, payload: payload)
            state.append(payload)
            if i == 15 { try PayloadListState.checkpoint(engine, state: state) }
        }
        try engine.close()
        // Tear the newest segment's last frame: keep all but its final 9 bytes.
        func firstLSN(_ path: String) -> UInt64 {
            StoreFileNames.segmentLSN(String(path.split(separator: "/").last ?? "")) ?? 0
        }
        let path = try #require(try LogFixture.segmentPaths(fs).max { firstLSN($0) < firstLSN($1) })
        let bytes = try #require(fs.contents(of: path))
        fs.setContents(of: path, to: Array(bytes.dropLast(9)))
        try LogFixture.forgetSyncs(fs)
        return (fs, Array(state.dropLast()))
    }

    /// The number of file-system calls a clean recovery of `fs` makes.
    static func recoveryCalls(_ fs: SimulatedFileSystem) throws -> Int {
        let image = fs.processCrashImage()
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image))
        _ = try PayloadListState.load(recovered)
        let calls = image.callCount
        try engine.close()
        return calls
    }

    @Test func faultAtEveryCallOfRecoveryFailsCleanlyAndLosesNothing() throws {
        let (disk, expected) = try Self.tornStore()
        let calls = try Self.recoveryCalls(disk)
        #expect(calls > 10, "recovery made only \(calls) calls; the store is not exercising recovery")
        var failedOpens = 0
        for n in 1...calls {
            for errno: Int32 in [5 /* EIO */, 28 /* ENOSPC */] {
                let fs = disk.processCrashImage()
                fs.injectFault(atCall: n, errno: errno)
                let context = "fault \(errno) at recovery call \(n) of \(calls)"
                do {
                    let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
                    // Recovery got past the fault (or the fault hit work it can do without):
                    // what it returns must be exactly the whole transactions.
                    #expect(try PayloadListState.load(recovered) == expected, "\(context): wrong state")
                    try? engine.close()
                } catch let error as StorageError {
                    failedOpens += 1
                    #expect(!error.message.isEmpty, "\(context): error without a message")
                } catch {
                    Issue.record("\(context): untyped error \(type(of: error)): \(error)")
                }
                // Whatever the faulted attempt did, the disk must still recover to the same
                // state, after a process crash and after a power loss.
                for image in [fs.processCrashImage(), fs.powerLossImage(seed: UInt64(n))] {
                    do {
                        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image))
                        #expect(try PayloadListState.load(recovered) == expected, "\(context): reopen lost or invented data")
                        _ = try engine.append(kind: 1, payload: [0xCD])
                        try engine.close()
                    } catch {
                        Issue.record("\(context): reopen after the faulted recovery failed: \(error)")
                    }
                }
            }
        }
        // Faults during recovery must be able to stop it: otherwise this test proves nothing.
        #expect(failedOpens > 0, "no injected fault made recovery fail")
    }
}
