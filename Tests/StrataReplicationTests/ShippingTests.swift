import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// Issue 22, shipping: every committed frame reaches PostgreSQL unchanged, snapshots follow
/// checkpoints, the log is held until shipped, and a different history is refused.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct ShippingTests {
    /// The local log's frames, byte for byte.
    static func localFrames(_ directory: String) throws -> [ShippedFrame] {
        var reader = LocalLogReader(directory: directory, after: 0, cipher: { nil })
        guard case .frames(let frames) = try reader.read() else { throw ReplicationError(.storage, "log trimmed") }
        return frames
    }

    @Test func everyFrameArrivesByteForByteWithItsChecksum() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PeopleStore.open(dir.path)
        let replicator = try Replicator(store: store, url: try TestServer.requireURL())
        try replicator.start()
        defer { replicator.stop() }
        for round in 0..<20 { try PeopleStore.save(store, round: round) }
        #expect(replicator.waitUntilShipped(store.lastLSN))
        let status = replicator.status
        #expect(status.shippedLSN == store.lastLSN)
        #expect(status.lagFrames == 0)
        #expect(status.lastError == nil)

        let session = try TestServer.session()
        defer { session.close() }
        let remote = RemoteLog(session: session, storeID: replicator.storeID)
        let shipped = try remote.frames(after: 0, through: .max, limit: 1_000)
        let local = try Self.localFrames(dir.path)
        #expect(shipped.map(\.lsn) == Array(1...store.lastLSN))
        let sameBytes = shipped.map(\.bytes) == local.map(\.bytes)
        #expect(sameBytes, "a shipped frame differs from the local log's")
        let sameTimes = shipped.map(\.timestamp) == local.map(\.timestamp)
        #expect(sameTimes, "a shipped frame's committed_at differs from its header")
    }

    @Test func aCheckpointShipsItsSnapshotAndKeepsUnshippedSegments() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PeopleStore.open(dir.path)
        for round in 0..<3 { try PeopleStore.save(store, round: round) }
        let replicator = try Replicator(store: store, url: try TestServer.requireURL())
        try replicator.start()
        // The hold is in place from start(): nothing is shipped beyond what PostgreSQL had.
        #expect(store.storageEngine.replication.retainedFrom != nil)
        #expect(replicator.waitUntilShipped(store.lastLSN))
        let lsn = try store.checkpoint()
        #expect(replicator.waitUntilShipped(lsn))
        try PeopleStore.save(store, round: 3)
        #expect(replicator.waitUntilShipped(store.lastLSN))
        // The snapshot is shipped on the replicator's next pass.
        let deadline = Date().addingTimeInterval(10)
        while replicator.status.snapshotLSN < lsn && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(replicator.status.snapshotLSN == lsn)
        let session = try TestServer.session()
        defer { session.close() }
        let remote = RemoteLog(session: session, storeID: replicator.storeID)
        #expect(try remote.snapshotLSNs() == [lsn])
        let local = try #require(FileManager.default.contents(atPath: "\(dir.path)/\(StoreFileNames.snapshot(lsn: lsn))"))
        #expect(try remote.snapshot(lsn: lsn) == Array(local))
        replicator.stop()
        #expect(store.storageEngine.replication.retainedFrom == nil)
    }

    @Test func aSecondStoreUnderTheSameIDIsRefusedAsDiverged() throws {
        let url = try TestServer.requireURL()
        let id = "diverged-\(UUID().uuidString.lowercased())"
        var options = Replicator.Options()
        options.storeID = id
        let first = try TemporaryDirectory(), second = try TemporaryDirectory()
        defer { first.remove(); second.remove() }
        let a = try PeopleStore.open(first.path)
        for round in 0..<3 { try PeopleStore.save(a, round: round) }
        let shipping = try Replicator(store: a, url: url, options: options)
        try shipping.start()
        #expect(shipping.waitUntilShipped(a.lastLSN))
        shipping.stop()

        // Another store with a longer history of other bytes: its frame at the shipped LSN differs.
        let b = try PeopleStore.open(second.path)
        for round in 0..<6 { try PeopleStore.save(b, round: round + 100) }
        let other = try Replicator(store: b, url: url, options: options)
        #expect(throws: ReplicationError.self) { try other.start() }
        do throws(ReplicationError) { try other.start() } catch { #expect(error.code == .diverged) }
        // A store behind what PostgreSQL holds is refused too.
        let third = try TemporaryDirectory()
        defer { third.remove() }
        let c = try PeopleStore.open(third.path)
        do throws(ReplicationError) { try Replicator(store: c, url: url, options: options).start(); Issue.record("a store behind PostgreSQL was accepted") }
        catch { #expect(error.code == .diverged) }
        #expect(b.storageEngine.replication.retainedFrom == nil, "a refused start keeps no hold")
    }

    @Test func synchronousSavesReturnOnlyOncePostgresHasTheirFrame() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PeopleStore.open(dir.path)
        var options = Replicator.Options()
        options.mode = .synchronous
        options.pollInterval = .seconds(5)  // nothing but the save's own wakeup ships its frame
        let replicator = try Replicator(store: store, url: try TestServer.requireURL(), options: options)
        try replicator.start()
        defer { replicator.stop() }
        let session = try TestServer.session()
        defer { session.close() }
        let remote = RemoteLog(session: session, storeID: replicator.storeID)
        for round in 0..<15 {
            try PeopleStore.save(store, round: round)
            // Read behind the replicator's back, straight after the save returned.
            #expect(try remote.shippedLSN() == store.lastLSN, "round \(round)")
        }
    }

    @Test func lagIsReportedWhileShippingIsStopped() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PeopleStore.open(dir.path)
        let replicator = try Replicator(store: store, url: try TestServer.requireURL())
        try replicator.start()
        #expect(replicator.waitUntilShipped(store.lastLSN))
        replicator.stop()
        for round in 0..<4 { try PeopleStore.save(store, round: round) }
        let status = replicator.status
        #expect(!status.isRunning)
        #expect(status.lagFrames == 4)
        // Started again, it ships the backlog.
        try replicator.start()
        defer { replicator.stop() }
        #expect(replicator.waitUntilShipped(store.lastLSN))
        #expect(replicator.status.lagFrames == 0)
    }
}
