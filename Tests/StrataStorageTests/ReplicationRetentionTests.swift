import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 22: a checkpoint never deletes a log segment that holds a frame a replicator has not
/// shipped yet (``ReplicationHooks/retainLog(from:)``), and deletes it once it is shipped.
@Suite struct ReplicationRetentionTests {
    /// A store with three segments (LSNs 1–4, 5–8, 9–12), checkpointed at LSN 12.
    /// `holdFile`: a sidecar's hold (``LogHoldFile``) written before the checkpoints.
    static func checkpointedStore(retainingFrom hold: UInt64?, holdFile: UInt64? = nil, holdFileBytes: [UInt8]? = nil) throws -> (SimulatedFileSystem, [String]) {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        engine.replication.retainLog(from: hold)
        if let holdFile { try LogHoldFile.write(holdFile, in: LogFixture.directory, fileSystem: fs) }
        if let holdFileBytes {
            let file = try fs.open("\(LogFixture.directory)/\(LogHoldFile.name)", mode: .createNew)
            try file.writeAll(holdFileBytes, at: 0)
            try file.close()
        }
        var state: [[UInt8]] = []
        for round in 0..<3 {
            for i in 0..<4 {
                let payload = [UInt8(round), UInt8(i)]
                _ = try engine.append(kind: 1, payload: payload)
                state.append(payload)
            }
            if round < 2 { _ = try engine.beginCheckpoint(); try engine.completeCheckpoint(lsn: engine.lastLSN, tables: [], metadata: []) { _ in } }
            // The first two checkpoints only rotate here (empty snapshots); the one below trims.
        }
        try PayloadListState.checkpoint(engine, state: state)
        try engine.close()
        return (fs, try fs.contentsOfDirectory(LogFixture.directory).filter { StoreFileNames.segmentLSN($0) != nil }.sorted())
    }

    @Test func aCheckpointKeepsEverySegmentWithAnUnshippedFrame() throws {
        // Shipped up to LSN 6: the segment holding 5–8 and everything after it stay.
        let (_, segments) = try Self.checkpointedStore(retainingFrom: 7)
        #expect(segments == [5, 9, 13].map { StoreFileNames.segment(firstLSN: $0) })
    }

    @Test func nothingShippedKeepsTheWholeLog() throws {
        let (_, segments) = try Self.checkpointedStore(retainingFrom: 1)
        #expect(segments == [1, 5, 9, 13].map { StoreFileNames.segment(firstLSN: $0) })
    }

    @Test func withoutAHoldOrOnceShippedTheCheckpointTrims() throws {
        for hold in [nil, UInt64(13)] {
            let (_, segments) = try Self.checkpointedStore(retainingFrom: hold)
            #expect(segments == [StoreFileNames.segment(firstLSN: 13)], "hold \(String(describing: hold))")
        }
    }

    @Test func aReopenedStoreWithKeptSegmentsRecoversTheSameState() throws {
        let (fs, _) = try Self.checkpointedStore(retainingFrom: 1)
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(recovered.snapshot?.lsn == 12)
        #expect(recovered.records.isEmpty)
        #expect(engine.lastLSN == 12)
        try engine.close()
    }

    /// The sidecar's hold file (`strata replicate`, another process) holds the log as the
    /// in-process hook does; the lower of the two wins.
    @Test func aSidecarsHoldFileKeepsItsUnshippedSegments() throws {
        let (_, segments) = try Self.checkpointedStore(retainingFrom: nil, holdFile: 7)
        #expect(segments == [5, 9, 13].map { StoreFileNames.segment(firstLSN: $0) })
        let (_, both) = try Self.checkpointedStore(retainingFrom: 10, holdFile: 3)
        #expect(both == [1, 5, 9, 13].map { StoreFileNames.segment(firstLSN: $0) })
        let (_, shipped) = try Self.checkpointedStore(retainingFrom: nil, holdFile: 13)
        #expect(shipped == [StoreFileNames.segment(firstLSN: 13)])
    }

    /// A hold file that does not read as an LSN keeps the whole log: deleting a frame that
    /// might not be shipped is the one thing a checkpoint must not do.
    @Test func anUnreadableHoldFileKeepsTheWholeLog() throws {
        for bytes in [Array("seven\n".utf8), Array("12".utf8), []] {
            let (_, segments) = try Self.checkpointedStore(retainingFrom: nil, holdFileBytes: bytes)
            #expect(segments == [1, 5, 9, 13].map { StoreFileNames.segment(firstLSN: $0) }, "\(bytes)")
        }
    }

    /// The hold file is replaced whole and durably: once written it survives any power loss,
    /// and a crash at any call of writing it, followed by a power loss, leaves the old hold or
    /// the new one, never none and never a torn one (which would hold the whole log).
    @Test func aPowerLossWhileWritingTheHoldLeavesTheOldOrTheNewHold() throws {
        let base = SimulatedFileSystem()
        try base.createDirectory("/store")
        try base.syncDirectory("/")
        try LogHoldFile.write(5, in: "/store", fileSystem: base)
        let written = base.processCrashImage()
        try LogHoldFile.write(9, in: "/store", fileSystem: written)
        for seed in UInt64(0)..<32 {
            #expect(LogHoldFile.read(in: "/store", fileSystem: written.powerLossImage(seed: seed)) == 9, "power-loss seed \(seed)")
        }
        for call in 1...12 {
            let fs = base.processCrashImage()
            fs.crash(atCall: call)
            _ = try? LogHoldFile.write(9, in: "/store", fileSystem: fs)
            for seed in UInt64(0)..<16 {
                let hold = LogHoldFile.read(in: "/store", fileSystem: fs.powerLossImage(seed: seed))
                #expect(hold == 5 || hold == 9, "crash at call \(call), power-loss seed \(seed): \(String(describing: hold))")
            }
        }
    }
}
