import Foundation
import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 15: `close()` released the writer lock while a checkpoint (the layer above runs
/// automatic ones on a background queue) was still writing its snapshot; a second writer
/// could then open, remove the `.snap.tmp` under it, and race its deletions.
@Suite struct CloseDuringCheckpointTests {
    @Test func closeWaitsForTheSnapshotBeingWrittenAndKeepsTheLock() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        let state = (0..<20).map { [UInt8($0)] }
        for payload in state { _ = try engine.append(kind: 1, payload: payload) }
        let lsn = try engine.beginCheckpoint()
        let filling = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0)
        let checkpointDone = DispatchSemaphore(value: 0), closeDone = DispatchSemaphore(value: 0)
        let errors = Locked<[String]>([])
        Thread {
            do {
                try engine.completeCheckpoint(lsn: lsn, tables: [PayloadListState.table], metadata: []) { writer in
                    filling.signal()
                    proceed.wait()
                    var column = ByteColumn()
                    for payload in state { column.append(payload) }
                    try writer.append(table: 0, columns: [ColumnChunk(values: .bytes(column))])
                }
            } catch { errors.withLock { $0.append("checkpoint: \(error)") } }
            checkpointDone.signal()
        }.start()
        filling.wait()
        let closeReturned = Locked(false)
        Thread {
            do { try engine.close() } catch { errors.withLock { $0.append("close: \(error)") } }
            closeReturned.withLock { $0 = true }
            closeDone.signal()
        }.start()
        // However long we wait, close must not return, nor give the lock away, while the
        // snapshot is being written.
        usleep(300_000)
        #expect(!closeReturned.withLock { $0 }, "close returned under a running checkpoint")
        let second = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(second?.code == .locked)
        proceed.signal()
        #expect(checkpointDone.wait(timeout: .now() + 120) == .success, "the checkpoint never finished")
        #expect(closeDone.wait(timeout: .now() + 120) == .success, "close never returned")
        #expect(errors.withLock { $0 } == [])
        let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs.powerLossImage(seed: 2)))
        #expect(recovered.snapshot?.lsn == 20)
        #expect(try PayloadListState.load(recovered) == state)
    }

    @Test func checkpointThatHadNotStartedWritingFailsCleanlyAfterClose() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        _ = try engine.append(kind: 1, payload: [1])
        let lsn = try engine.beginCheckpoint()
        try engine.close()
        let error = #expect(throws: StorageError.self) {
            try engine.completeCheckpoint(lsn: lsn, tables: [PayloadListState.table], metadata: []) { _ in }
        }
        #expect(error?.code == .closed)
        #expect(try fs.contentsOfDirectory(LogFixture.directory).allSatisfy { !$0.contains(".snap") })
    }
}
