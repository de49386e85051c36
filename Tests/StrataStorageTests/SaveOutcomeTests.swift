import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 15, confirmed bug 3: what an append's result promises.
///
/// - An append that returns has its frame durable (under `.always`), even when something
///   fails right after it (a rotation, another batch's sync).
/// - An append that throws is absent after every kind of crash: a process crash, a power
///   loss, or both in a row — so an app that retries a failed save never saves it twice.
@Suite struct SaveOutcomeTests {
    static func options(_ fs: SimulatedFileSystem) -> StorageOptions { LogFixture.options(fs, segmentSize: 4096) }

    static func reopened(_ fs: SimulatedFileSystem) throws -> [[UInt8]] {
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        defer { try? engine.close() }
        return try PayloadListState.load(recovered)
    }

    /// Every disk a crash after this point can leave: a process crash, power losses, and a
    /// process crash followed by a power loss.
    static func images(_ fs: SimulatedFileSystem) -> [SimulatedFileSystem] {
        let crashed = fs.processCrashImage()
        return [crashed] + (1...6).map { fs.powerLossImage(seed: $0) } + (1...6).map { crashed.powerLossImage(seed: 100 + $0) }
    }

    @Test func durableFrameIsASuccessEvenWhenTheRotationAfterItFails() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: Self.options(fs))
        var saved: [[UInt8]] = []
        var rng = SplitMix64(seed: 5)
        func incompressible(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        for _ in 0..<3 {
            saved.append(incompressible(1000))
            _ = try engine.append(kind: 1, payload: saved.last!)
        }
        // The next append fills the segment past 4096 bytes: its flush syncs the frame, then
        // the rotation fails to create the next segment.
        fs.injectFault(atNext: "open", pathContaining: "wal-", errno: 28)
        saved.append(incompressible(1200))
        #expect(try engine.append(kind: 1, payload: saved.last!) == 4)
        #expect(engine.failure?.code == .diskFull)
        #expect(throws: StorageError.self) { _ = try engine.append(kind: 1, payload: [1]) }
        for image in Self.images(fs) { #expect(try Self.reopened(image) == saved) }
    }

    @Test func committerWhoseBatchWasSyncedSucceedsWhenALaterBatchFails() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        let first = try engine.submit(kind: 1, payload: [1])
        try engine.waitUntilDurable(first)
        let second = try engine.submit(kind: 1, payload: [2])
        fs.injectFault(atNext: "fdatasync", errno: 5)
        #expect(throws: StorageError.self) { try engine.waitUntilDurable(second) }
        // The first committer asks only now (a slow thread): its frame is durable.
        try engine.waitUntilDurable(first)
        for image in Self.images(fs) { #expect(try Self.reopened(image) == [[1]]) }
    }

    @Test(arguments: ["fdatasync", "pwrite"])
    func failedSaveIsAbsentAfterEveryKindOfCrash(failing operation: String) throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        _ = try engine.append(kind: 1, payload: [1, 1])
        fs.injectFault(atNext: operation, pathContaining: "wal-", errno: 5)
        let error = #expect(throws: StorageError.self) { _ = try engine.append(kind: 1, payload: [2, 2]) }
        #expect(error?.code == .io)
        for image in Self.images(fs) {
            #expect(try Self.reopened(image) == [[1, 1]], "a failed save reappeared")
        }
    }

    /// After a failed sync, what was written since the last good sync may never reach the
    /// disk while the page cache still shows it; it is cut off rather than left for the next
    /// open to vouch for. Under `.never` that drops appends that returned (they were never
    /// promised durable); under `.always` nothing that returned is lost.
    @Test func failedSyncCutsTheLogBackToTheLastGoodSync() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, durability: .never))
        _ = try engine.append(kind: 1, payload: [1])
        _ = try engine.beginCheckpoint() // syncs LSN 1 and starts wal-2
        _ = try engine.append(kind: 1, payload: [2])
        _ = try engine.append(kind: 1, payload: [3])
        fs.injectFault(atNext: "fdatasync", pathContaining: "wal-", errno: 5)
        #expect(throws: StorageError.self) { try engine.close() }
        let segment = "\(LogFixture.directory)/\(StoreFileNames.segment(firstLSN: 2))"
        #expect(fs.contents(of: segment)?.count == SegmentHeader.size)
        for image in Self.images(fs) { #expect(try Self.reopened(image) == [[1]]) }
    }
}
