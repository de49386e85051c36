import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 15, confirmed bug 1: a checkpoint chose what to delete by the LSNs in file names
/// alone, so a stray snapshot named above the head made it delete the snapshot it had just
/// written and the log, leaving nothing. A checkpoint now trims relative to the snapshot it
/// has just written and verified, and a snapshot ahead of the log never decides anything.
@Suite struct CheckpointTrimTests {
    static let stray = "\(LogFixture.directory)/\(StoreFileNames.snapshot(lsn: 100))"

    /// A store at LSN 6 with `extra` written as `snapshot-…100.snap`.
    static func storeWithStraySnapshot(_ extra: [UInt8], retained: Int = 1) throws -> (SimulatedFileSystem, StorageEngine, [[UInt8]]) {
        let fs = SimulatedFileSystem()
        var options = LogFixture.options(fs)
        options.snapshotsRetained = retained
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: options)
        let state = (0..<6).map { [UInt8($0), 0x5A] }
        for payload in state { _ = try engine.append(kind: 1, payload: payload) }
        let file = try fs.open(stray, mode: .createNew)
        try file.writeAll(extra, at: 0)
        try file.sync()
        try fs.syncDirectory(LogFixture.directory)
        return (fs, engine, state)
    }

    @Test(arguments: [1, 2])
    func garbageSnapshotAboveTheHeadDecidesNothing(retained: Int) throws {
        let garbage = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let (fs, engine, state) = try Self.storeWithStraySnapshot(garbage, retained: retained)
        try PayloadListState.checkpoint(engine, state: state)
        try engine.close()
        let names = try fs.contentsOfDirectory(LogFixture.directory)
        #expect(names.contains(StoreFileNames.snapshot(lsn: 6)), "the checkpoint deleted the snapshot it wrote: \(names)")
        #expect(names.contains(StoreFileNames.segment(firstLSN: 7)))
        // The stray is left alone (Strata never deletes what it cannot read) and reported.
        #expect(fs.contents(of: Self.stray) == garbage)
        for image in [fs.processCrashImage(), fs.powerLossImage(seed: 3)] {
            let (reopened, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image))
            #expect(recovered.snapshot?.lsn == 6)
            #expect(recovered.report.unusableSnapshots.keys.contains(StoreFileNames.snapshot(lsn: 100)))
            #expect(try PayloadListState.load(recovered) == state)
            try reopened.close()
        }
    }

    /// A snapshot that verifies but holds an LSN the log never reached: either it is a stray
    /// or the segments after it are missing. Guessing could lose data either way, so a strict
    /// open refuses with `corrupted`; point-in-time recovery moves it aside and opens the log.
    @Test func validSnapshotAheadOfTheLogIsRefusedOrMovedAside() throws {
        // A real snapshot of another store's LSN 100, copied in.
        let other = SimulatedFileSystem()
        let (writer, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(other))
        let foreign = (0..<100).map { [UInt8($0)] }
        for payload in foreign { _ = try writer.append(kind: 1, payload: payload) }
        try PayloadListState.checkpoint(writer, state: foreign)
        try writer.close()
        let copy = try #require(other.contents(of: Self.stray))

        let (fs, engine, state) = try Self.storeWithStraySnapshot(copy)
        try engine.close()
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .corrupted && error?.file == Self.stray)
        #expect(error?.message.contains("ahead of the log") == true)
        let (reopened, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, mode: .pointInTime))
        #expect(try PayloadListState.load(recovered) == state)
        let aside = try #require(recovered.report.quarantinedFiles.first)
        #expect(fs.contents(of: "\(LogFixture.directory)/\(aside)") == copy)
        try PayloadListState.checkpoint(reopened, state: state)
        try reopened.close()
        let (_, again) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs.powerLossImage(seed: 9)))
        #expect(try PayloadListState.load(again) == state)
    }

    /// Retention keeps older snapshots, and the log they need, only below the new one.
    @Test func retentionCountsOnlySnapshotsBelowTheNewOne() throws {
        let fs = SimulatedFileSystem()
        var options = LogFixture.options(fs)
        options.snapshotsRetained = 2
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: options)
        var state: [[UInt8]] = []
        for round in 0..<3 {
            for i in 0..<4 {
                state.append([UInt8(round), UInt8(i)])
                _ = try engine.append(kind: 1, payload: state.last!)
            }
            try PayloadListState.checkpoint(engine, state: state)
        }
        try engine.close()
        let names = try fs.contentsOfDirectory(LogFixture.directory)
        #expect(names.filter { StoreFileNames.snapshotLSN($0) != nil } == [StoreFileNames.snapshot(lsn: 8), StoreFileNames.snapshot(lsn: 12)])
        #expect(names.filter { StoreFileNames.segmentLSN($0) != nil } == [StoreFileNames.segment(firstLSN: 9), StoreFileNames.segment(firstLSN: 13)])
    }
}

extension CheckpointTrimTests {
    /// A snapshot that does not read back whole (here: a disk that flips a bit in what it
    /// was given) must not be the reason the log is deleted.
    @Test func snapshotThatDoesNotVerifyTrimsNothing() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        let state = (0..<30).map { i in (0..<40).map { b in UInt8(truncatingIfNeeded: b &* i) } }
        for payload in state { _ = try engine.append(kind: 1, payload: payload) }
        fs.damageWrites(toPathsEndingWith: ".snap.tmp")
        let error = #expect(throws: StorageError.self) { try PayloadListState.checkpoint(engine, state: state) }
        #expect(error?.code == .corrupted)
        try engine.close()
        let names = try fs.contentsOfDirectory(LogFixture.directory)
        #expect(names.contains(StoreFileNames.segment(firstLSN: 1)), "the log was trimmed on an unverified snapshot: \(names)")
        let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs.powerLossImage(seed: 1)))
        #expect(try PayloadListState.load(recovered) == state)
    }
}
