import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

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
        #expect(stdout.hasSuffix("Stopped: PostgreSQL holds store \(id) up to LSN \(store.lastLSN).\n"), "\(stdout)")

        let target = dir.appending("restored.strata")
        let report = try StoreRestore.restore(from: url, storeID: id, into: target)
        #expect(report.snapshotLSN == checkpointed)
        #expect(try PeopleStore.contents(PeopleStore.open(target)) == PeopleStore.contents(store))
    }
}
