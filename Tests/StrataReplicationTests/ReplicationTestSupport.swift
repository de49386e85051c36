import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// The PostgreSQL server the replication suite runs against: `STRATA_POSTGRES_URL`, which
/// `scripts/test` sets after starting a throwaway cluster (scripts/postgres-server).
///
/// Without it, the suites are skipped and say so — unless `STRATA_REQUIRE_POSTGRES=1` (set by
/// `scripts/test`, so in CI), when they run and fail on the missing URL.
enum TestServer {
    static let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"]
    static let required = ProcessInfo.processInfo.environment["STRATA_REQUIRE_POSTGRES"] == "1"
    static let available = url != nil || required
    static let skipReason: Comment = "no PostgreSQL server: set STRATA_POSTGRES_URL (scripts/test starts one)"

    /// The server's URL; fails the test when it is required and missing.
    static func requireURL() throws -> String {
        try #require(url, "STRATA_POSTGRES_URL is not set, and STRATA_REQUIRE_POSTGRES=1 says the replication suite must run")
    }

    /// A session to the server for checks made behind the replicator's back.
    static func session() throws -> PostgresSession {
        try PostgresSession.connect(PostgresLocation(try requireURL()))
    }
}

/// A small store to replicate: people with a name and an age.
enum PeopleStore {
    static let schema = try! Schema {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("age", .int64, default: 0)
        }
    }

    static func open(_ directory: String, options: PersistentStore.Options = PersistentStore.Options()) throws -> PersistentStore {
        try PersistentStore.open(at: directory, schema: schema, options: options)
    }

    /// Inserts `count` people in one save, and renames one older person when there is one.
    static func save(_ store: PersistentStore, round: Int, count: Int = 3) throws {
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for i in 0..<count {
                let person = try context.insert("Person")
                try person.setValue(.string("person \(round).\(i)"), forKey: "name")
                try person.setValue(.int(Int64(round * 10 + i)), forKey: "age")
            }
            if round > 1 {
                let older = try context.fetch(FetchRequest(entityName: "Person"))
                if let first = older.first { try first.setValue(.string("renamed in round \(round)"), forKey: "name") }
            }
            try context.save()
        }
    }

    /// Every stored row, for comparing two stores.
    static func contents(_ store: PersistentStore) throws -> StoredRows {
        try store.fetchRows(FetchRequest(entityName: "Person"))
    }
}
