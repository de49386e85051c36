import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 22: a checkpoint never deletes a log segment that holds a frame a replicator has not
/// shipped yet (``ReplicationHooks/retainLog(from:)``), and deletes it once it is shipped.
@Suite struct ReplicationRetentionTests {
    /// A store with three segments (LSNs 1–4, 5–8, 9–12), checkpointed at LSN 12.
    static func checkpointedStore(retainingFrom hold: UInt64?) throws -> (SimulatedFileSystem, [String]) {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        engine.replication.retainLog(from: hold)
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
}
