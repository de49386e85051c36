import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// Issue 22, restore: a store built from PostgreSQL as of an LSN passes verification and
/// equals the primary as of that LSN, across snapshots; what is missing is a clear error.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct RestoreTests {
    /// Ships a store through two checkpoints; returns its ID and its contents after each LSN.
    static func shippedHistory(_ dir: TemporaryDirectory) throws -> (id: String, states: [UInt64: StoredRows], snapshots: [UInt64]) {
        let store = try PeopleStore.open(dir.path)
        let replicator = try Replicator(store: store, url: try TestServer.requireURL())
        try replicator.start()
        defer { replicator.stop() }
        var states: [UInt64: StoredRows] = [store.lastLSN: try PeopleStore.contents(store)]
        var snapshots: [UInt64] = []
        for round in 0..<12 {
            try PeopleStore.save(store, round: round)
            states[store.lastLSN] = try PeopleStore.contents(store)
            if round == 4 || round == 8 {
                snapshots.append(try store.checkpoint())
                #expect(replicator.waitUntilShipped(store.lastLSN))
                let deadline = Date().addingTimeInterval(10)
                while replicator.status.snapshotLSN < snapshots.last! && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            }
        }
        #expect(replicator.waitUntilShipped(store.lastLSN))
        #expect(replicator.status.snapshotLSN == snapshots.last)
        return (replicator.storeID, states, snapshots)
    }

    @Test func aRestoreAtEveryLSNEqualsThePrimaryAsOfIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (id, states, snapshots) = try Self.shippedHistory(dir)
        let url = try TestServer.requireURL()
        for lsn in states.keys.sorted() {
            let target = try TemporaryDirectory()
            defer { target.remove() }
            let into = target.appending("restored.strata")
            let report = try StoreRestore.restore(from: url, storeID: id, at: lsn, into: into)
            #expect(report.lsn == lsn)
            #expect(report.snapshotLSN == (snapshots.last { $0 <= lsn } ?? 0), "LSN \(lsn)")
            #expect(try StoreInspector.verify(at: into, deep: true).isSound, "LSN \(lsn)")
            let restored = try PeopleStore.open(into)
            #expect(restored.lastLSN == lsn)
            #expect(try PeopleStore.contents(restored) == states[lsn], "LSN \(lsn)")
            try restored.checkInvariants()
            // It is an ordinary store: it takes new saves after the restored history.
            try PeopleStore.save(restored, round: 99)
            #expect(restored.lastLSN == lsn + 1)
            try restored.close()
        }
        // Without --at: the newest shipped state.
        let target = try TemporaryDirectory()
        defer { target.remove() }
        let report = try StoreRestore.restore(from: url, storeID: id, into: target.path)
        #expect(report.lsn == states.keys.max())
    }

    @Test func whatCannotBeRestoredIsAClearError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (id, states, _) = try Self.shippedHistory(dir)
        let url = try TestServer.requireURL()
        let target = try TemporaryDirectory()
        defer { target.remove() }
        func code(_ body: () throws -> Void) -> ReplicationError.Code? {
            do { try body(); return nil } catch let error as ReplicationError { return error.code } catch { return nil }
        }
        #expect(code { try StoreRestore.restore(from: url, storeID: "no-such-store", into: target.appending("a")) } == .notFound)
        #expect(code { try StoreRestore.restore(from: url, storeID: id, at: states.keys.max()! + 1, into: target.appending("b")) } == .notFound)
        try FileManager.default.createDirectory(atPath: target.appending("c"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: target.appending("c/file"), contents: Data("x".utf8)))
        #expect(code { try StoreRestore.restore(from: url, storeID: id, into: target.appending("c")) } == .invalidArgument)
        #expect(code { try StoreRestore.restore(from: "mysql://x@y/z", storeID: id, into: target.appending("d")) } == .invalidURL)
        // A failed restore leaves no half-built store behind.
        #expect(!FileManager.default.fileExists(atPath: target.appending("b")))

        // A frame damaged in PostgreSQL is refused, naming it.
        let session = try TestServer.session()
        defer { session.close() }
        let last = Int64(states.keys.max()!)
        try session.run("UPDATE strata_frames SET frame = set_byte(frame, 60, get_byte(frame, 60) # 255) WHERE store_id = \(id) AND lsn = \(last)", "damaging a frame")
        #expect(code { try StoreRestore.restore(from: url, storeID: id, into: target.appending("e")) } == .corrupted)
        // Frames missing after the snapshot: a gap.
        try session.run("DELETE FROM strata_frames WHERE store_id = \(id) AND lsn = \(last)", "removing a frame")
        #expect(code { try StoreRestore.restore(from: url, storeID: id, into: target.appending("f")) } == .gap)
        #expect(try StoreRestore.restore(from: url, storeID: id, at: UInt64(last - 1), into: target.appending("g")).lsn == UInt64(last - 1))
    }

    @Test func aStoreCheckpointedBeforeItsReplicatorStartedShipsItsSnapshotFirst() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PeopleStore.open(dir.path)
        for round in 0..<4 { try PeopleStore.save(store, round: round) }
        let checkpointed = try store.checkpoint()
        try PeopleStore.save(store, round: 4)
        let url = try TestServer.requireURL()
        let replicator = try Replicator(store: store, url: url)
        try replicator.start()
        defer { replicator.stop() }
        #expect(replicator.waitUntilShipped(store.lastLSN))
        let target = try TemporaryDirectory()
        defer { target.remove() }
        let report = try StoreRestore.restore(from: url, storeID: replicator.storeID, into: target.appending("r"))
        #expect(report.snapshotLSN == checkpointed)
        let restored = try PeopleStore.open(target.appending("r"))
        #expect(try PeopleStore.contents(restored) == PeopleStore.contents(store))
        // Before the snapshot, PostgreSQL has no frames: a gap, said so.
        do throws(ReplicationError) {
            try StoreRestore.restore(from: url, storeID: replicator.storeID, at: checkpointed - 1, into: target.appending("s"))
            Issue.record("restored an LSN whose frames were never shipped")
        } catch { #expect(error.code == .gap) }
    }
}
