import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication
import StrataStorage

/// `strata replicate STORE --to URL`, the sidecar: a separate process ships the log of a store
/// that this test process writes, snapshots included, and stops cleanly on SIGTERM.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct ReplicateCommandTests {
    @Test func theSidecarShipsAnotherProcesssWritesUntilTerminated() throws {
        let url = try TestServer.requireURL()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.appending("primary.strata")
        let store = try PeopleStore.open(path)
        let id = store.storeID.uuidString.lowercased()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RestoreCommandTests.binary)
        process.arguments = ["replicate", path, "--to", url, "--poll-ms", "20"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }

        let session = try TestServer.session()
        defer { session.close() }
        let remote = RemoteLog(session: session, storeID: id)
        func waitUntilShipped(_ lsn: UInt64) throws -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let shipped = try? remote.shippedLSN(), shipped >= lsn { return true }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return false
        }
        for round in 0..<3 { try PeopleStore.save(store, round: round) }
        #expect(try waitUntilShipped(store.lastLSN))
        let checkpointed = try store.checkpoint()
        for round in 3..<5 { try PeopleStore.save(store, round: round) }
        #expect(try waitUntilShipped(store.lastLSN))
        #expect(try remote.snapshotLSNs() == [checkpointed])

        process.terminate()
        process.waitUntilExit()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stdout.hasPrefix("Replicating \(path) as store \(id) to "))
        #expect(stdout.hasSuffix("Stopped: PostgreSQL holds store \(id) up to LSN \(store.lastLSN); the writer keeps its log from LSN \(store.lastLSN + 1) for the next run (delete \(path)/replication-hold to release it).\n"), "\(stdout)")

        let target = dir.appending("restored.strata")
        let report = try StoreRestore.restore(from: url, storeID: id, into: target)
        #expect(report.snapshotLSN == checkpointed)
        #expect(try PeopleStore.contents(PeopleStore.open(target)) == PeopleStore.contents(store))
    }

    /// The sidecar holds the writer's log (`replication-hold`): frames the writer commits while
    /// the sidecar is stopped survive the writer's checkpoint, and the sidecar started again
    /// ships every one of them, so every LSN stays restorable. Without the hold the checkpoint
    /// removes them and only the snapshot that replaced them is shipped (a gap for restore).
    @Test func theSidecarsHoldKeepsFramesCommittedWhileItWasStopped() throws {
        let url = try TestServer.requireURL()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.appending("primary.strata")
        let store = try PeopleStore.open(path)
        let id = store.storeID.uuidString.lowercased()
        func sidecar() throws -> FollowPromoteCommandTests.RunningTool {
            try FollowPromoteCommandTests.RunningTool(["replicate", path, "--to", url, "--poll-ms", "20", "--report-ms", "20"])
        }
        let session = try TestServer.session()
        defer { session.close() }
        let remote = RemoteLog(session: session, storeID: id)
        func waitUntilShipped(_ lsn: UInt64) -> Bool {
            ReplicaTests.eventually(20) { ((try? remote.shippedLSN()) ?? 0) >= lsn }
        }

        let first = try sidecar()
        #expect(first.waitFor("Replicating "), "\(first.stdout)")
        for round in 0..<2 { try PeopleStore.save(store, round: round) }
        #expect(waitUntilShipped(store.lastLSN))
        // While it runs, it reports what it shipped.
        #expect(first.waitFor("Shipped LSN \(store.lastLSN) "), "\(first.stdout)")
        let (status, stderr) = first.stop()
        #expect(status == 0, "\(stderr)")
        let stoppedAt = store.lastLSN
        #expect(LogHoldFile.read(in: path, fileSystem: PosixFileSystem()) == stoppedAt + 1)

        // The writer goes on without a sidecar, and checkpoints.
        for round in 2..<5 { try PeopleStore.save(store, round: round) }
        let middle = store.lastLSN - 1
        _ = try store.checkpoint()
        let second = try sidecar()
        #expect(waitUntilShipped(store.lastLSN), "\(second.stdout)")
        _ = second.stop()

        // Every frame after the stop reached PostgreSQL: restoring between them works.
        for lsn in [stoppedAt + 1, middle] {
            let report = try StoreRestore.restore(from: url, storeID: id, at: lsn, into: dir.appending("at-\(lsn).strata"))
            #expect(report.lsn == lsn)
        }
    }
}
