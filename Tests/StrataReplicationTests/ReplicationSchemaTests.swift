import Foundation
import PostgresNIO
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// The replication tables' versions (docs/REPLICATION.md, section 2): a version-2 database
/// (before encrypted frames) is upgraded in place and ships on; a database made by a newer
/// version is refused with `unsupportedSchema` before anything is written to it.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct ReplicationSchemaTests {
    /// A fresh database on the test server, its URL, and a way to drop it.
    static func scratchDatabase() throws -> (url: String, drop: () -> Void) {
        let name = "strata_schema_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try TestServer.session()
        _ = try admin.run(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), "Creating a scratch database")
        admin.close()
        let base = try TestServer.requireURL()
        let url = base[..<(base.lastIndex(of: "/") ?? base.endIndex)] + "/\(name)"
        return (String(url), {
            if let admin = try? TestServer.session() {
                _ = try? admin.run(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), "Dropping a scratch database")
                admin.close()
            }
        })
    }

    @Test func aVersionTwoDatabaseIsUpgradedAndANewerOneIsRefused() throws {
        let (url, drop) = try Self.scratchDatabase()
        defer { drop() }
        let session = try PostgresSession.connect(PostgresLocation(url))
        defer { session.close() }
        // What a version-2 build made: the tables without strata_frames.encryption.
        try ReplicationSchema.prepare(session)
        _ = try session.run("ALTER TABLE strata_frames DROP COLUMN encryption", "Making a version-2 database")
        _ = try session.run("DELETE FROM strata_schema WHERE version = 3", "Making a version-2 database")

        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PeopleStore.open(dir.path)
        try PeopleStore.save(store, round: 0)
        let replicator = try Replicator(store: store, url: url)
        try replicator.start()
        #expect(replicator.waitUntilShipped(store.lastLSN))
        replicator.stop()
        let versions = try session.run("SELECT version FROM strata_schema ORDER BY version", "Reading the versions")
            .map { try $0.decode(Int32.self) }
        #expect(versions == [3])
        let plain = try session.run("SELECT count(*) FROM strata_frames WHERE encryption IS NULL", "Counting plain frames")
        #expect(try plain.first?.decode(Int64.self) == Int64(store.lastLSN))

        // A newer build's tables: refused, and nothing shipped into them.
        _ = try session.run("INSERT INTO strata_schema (version) VALUES (4)", "Making a newer database")
        try PeopleStore.save(store, round: 1)
        let newer = try Replicator(store: store, url: url)
        do {
            try newer.start()
            newer.stop()
            Issue.record("a replicator started against tables of a newer schema version")
        } catch {
            #expect(error.code == .unsupportedSchema, "\(error)")
            #expect(error.message.contains("version 4"), "\(error.message)")
        }
        let shipped = try session.run("SELECT max(lsn) FROM strata_frames", "Reading the last frame")
        #expect(try shipped.first?.decode(Int64?.self) == Int64(store.lastLSN - 1))
        try store.close()
    }
}
