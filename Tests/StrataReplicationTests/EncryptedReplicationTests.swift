import Crypto
import Foundation
import Testing
import StrataEncryption
import StrataStorage
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// Issues 22 and 23: an encrypted store replicates without PostgreSQL ever holding its
/// plaintext or its key, and what comes back (a restore, a replica) opens with the store's
/// key, equal to the primary, across log generations (the first write after each open of an
/// encrypted store starts a segment with a fresh salt) and snapshots.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct EncryptedReplicationTests {
    static let marker = "MARKER-7d1f-plaintext"

    static func options(_ key: SymmetricKey?) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.encryptionKey = key
        return options
    }

    /// Saves `round` with a person whose name carries ``marker``.
    static func save(_ store: PersistentStore, round: Int) throws {
        try PeopleStore.save(store, round: round)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let person = try context.insert("Person")
            try person.setValue(.string("\(marker) \(round)"), forKey: "name")
            try context.save()
        }
    }

    /// Ships an encrypted store through three opens (three log generations) and a
    /// checkpoint; returns its ID and its contents.
    static func shipEncryptedStore(_ dir: TemporaryDirectory, key: SymmetricKey) throws -> (id: String, rows: StoredRows, lsn: UInt64) {
        var id: String?
        var round = 0
        for generation in 0..<3 {
            let store = try PeopleStore.open(dir.path, options: options(key))
            var replicatorOptions = Replicator.Options()
            if let id { replicatorOptions.storeID = id }
            let replicator = try Replicator(store: store, url: try TestServer.requireURL(), options: replicatorOptions)
            try replicator.start()
            id = replicator.storeID
            for _ in 0..<3 {
                try save(store, round: round)
                round += 1
            }
            if generation == 1 {
                let lsn = try store.checkpoint()
                #expect(replicator.waitUntilShipped(lsn))
                let deadline = Date().addingTimeInterval(10)
                while replicator.status.snapshotLSN < lsn && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
                #expect(replicator.status.snapshotLSN == lsn)
                try save(store, round: round)
                round += 1
            }
            #expect(replicator.waitUntilShipped(store.lastLSN))
            #expect(replicator.status.lastError == nil)
            replicator.stop()
            if generation == 2 {
                let result = (replicator.storeID, try PeopleStore.contents(store), store.lastLSN)
                try store.close()
                return result
            }
            try store.close()
        }
        fatalError("unreachable")
    }

    @Test func postgresHoldsNoPlaintextAndARestoreOpensOnlyWithTheKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = SymmetricKey(size: .bits256)
        let (id, rows, lsn) = try Self.shipEncryptedStore(dir, key: key)

        // Neither the frames nor the snapshot's bytes in PostgreSQL hold the marker.
        let session = try TestServer.session()
        defer { session.close() }
        let found = try session.run("""
            SELECT (SELECT count(*) FROM strata_frames WHERE store_id = \(id) AND position(convert_to(\(Self.marker), 'UTF8') IN frame) > 0)
                 + (SELECT count(*) FROM strata_snapshot_chunks WHERE store_id = \(id) AND position(convert_to(\(Self.marker), 'UTF8') IN bytes) > 0)
            """, "Looking for the plaintext marker")
        #expect(try found.first?.decode(Int64.self) == 0)
        let withHeader = try session.run("SELECT count(*) FROM strata_frames WHERE store_id = \(id) AND encryption IS NOT NULL", "Counting encrypted frames")
        #expect(try withHeader.first?.decode(Int64.self) ?? 0 > 0)

        let target = try TemporaryDirectory()
        defer { target.remove() }
        let into = target.appending("restored.strata")
        let report = try StoreRestore.restore(from: try TestServer.requireURL(), storeID: id, into: into)
        #expect(report.lsn == lsn)
        #expect(report.snapshotLSN > 0)
        // The frames after the snapshot span two log generations: two segments, two salts.
        #expect(report.segments.count >= 2)

        // Without the key, or with another, the restored store does not open.
        func code(_ options: PersistentStore.Options) -> StorageError.Code? {
            do { _ = try PeopleStore.open(into, options: options); return nil }
            catch let error as StorageError { return error.code } catch { return nil }
        }
        #expect(code(Self.options(nil)) == .encryptionKeyRequired)
        #expect(code(Self.options(SymmetricKey(size: .bits256))) == .wrongKey)

        let restored = try PeopleStore.open(into, options: Self.options(key))
        #expect(restored.lastLSN == lsn)
        #expect(try PeopleStore.contents(restored) == rows)
        try restored.checkInvariants()
        try Self.save(restored, round: 100)
        try restored.close()
    }

    @Test func aReplicaOfAnEncryptedStoreFollowsWithTheKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = SymmetricKey(size: .bits256)
        let (id, _, _) = try Self.shipEncryptedStore(dir, key: key)
        let url = try TestServer.requireURL()

        let target = try TemporaryDirectory()
        defer { target.remove() }
        // A replica without the key cannot open what it rebuilt: a clear error, not damage.
        do {
            _ = try PersistentStore.openReplica(at: target.appending("keyless"), from: url, storeID: id)
            Issue.record("a replica of an encrypted store opened without its key")
        } catch {
            #expect("\(error)".contains("encrypted"), "\(error)")
        }

        var replicaOptions = Replica.Options()
        replicaOptions.storeOptions.encryptionKey = key
        replicaOptions.pollInterval = .milliseconds(100)
        let replica = try PersistentStore.openReplica(at: target.appending("replica"), from: url, storeID: id, options: replicaOptions)
        defer { try? replica.close() }

        // The primary opens again (a fourth generation) and keeps writing; the replica follows.
        let primary = try PeopleStore.open(dir.path, options: Self.options(key))
        var shipping = Replicator.Options()
        shipping.storeID = id
        let replicator = try Replicator(store: primary, url: url, options: shipping)
        try replicator.start()
        defer { replicator.stop() }
        for round in 200..<203 { try Self.save(primary, round: round) }
        #expect(replicator.waitUntilShipped(primary.lastLSN))
        #expect(replica.waitUntilApplied(primary.lastLSN))
        #expect(try PeopleStore.contents(replica.store) == (try PeopleStore.contents(primary)))
    }

    /// A key rotation on a shipping store: the replicator follows the log under the new key,
    /// and a restore before the rotation opens with the old key, after it with the new one.
    @Test func aRotatedKeyShipsOnAndRestoresUnderTheKeyOfItsTime() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let url = try TestServer.requireURL()
        let (old, new) = (SymmetricKey(size: .bits256), SymmetricKey(size: .bits256))
        let store = try PeopleStore.open(dir.path, options: Self.options(old))
        let replicator = try Replicator(store: store, url: url)
        try replicator.start()
        defer { replicator.stop() }
        for round in 0..<2 { try Self.save(store, round: round) }
        let before = (lsn: store.lastLSN, rows: try PeopleStore.contents(store))
        try Self.save(store, round: 2)
        #expect(replicator.waitUntilShipped(store.lastLSN))
        // The rotation's snapshot (under the new key) holds the state at its LSN, so a restore
        // to that LSN or later opens with the new key, and one to an earlier LSN with the old.
        #expect(try store.rotateKey(to: new) > before.lsn)
        for round in 3..<6 { try Self.save(store, round: round) }
        #expect(replicator.waitUntilShipped(store.lastLSN))
        #expect(replicator.status.lastError == nil)
        let after = (lsn: store.lastLSN, rows: try PeopleStore.contents(store))
        try store.close()

        let target = try TemporaryDirectory()
        defer { target.remove() }
        for (name, lsn, key, other, rows) in [("before", before.lsn, old, new, before.rows), ("after", after.lsn, new, old, after.rows)] {
            let into = target.appending(name)
            _ = try StoreRestore.restore(from: url, storeID: replicator.storeID, at: lsn, into: into)
            #expect(throws: StorageError.self) { _ = try PeopleStore.open(into, options: Self.options(other)) }
            let restored = try PeopleStore.open(into, options: Self.options(key))
            #expect(restored.lastLSN == lsn, "\(name)")
            #expect(try PeopleStore.contents(restored) == rows, "\(name)")
            try restored.close()
        }
    }
}
