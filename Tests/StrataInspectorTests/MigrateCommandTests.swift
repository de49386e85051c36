import Foundation
import Strata
import StrataTestSupport
import Testing

/// `strata migrate STORE --schema new.json [--dry-run]` and `strata schema STORE --history`,
/// run as the built binary.
@Suite struct MigrateCommandTests {
    static let v1 = #"{"entities":[{"name":"Book","attributes":[{"name":"title","type":"string"},{"name":"pages","type":"int16","optional":true}],"relationships":[]}]}"#
    static let v2 = #"{"entities":[{"name":"Book","attributes":[{"name":"name","type":"string","originalName":"title"},{"name":"pages","type":"double","optional":true},{"name":"language","type":"string","default":"en"}],"relationships":[]}]}"#
    static let v3 = #"{"entities":[{"name":"Book","attributes":[{"name":"title","type":"date"},{"name":"pages","type":"int16","optional":true}],"relationships":[]}]}"#

    /// A store of two books in a temporary directory, and the schema files.
    static func makeStore(_ directory: TemporaryDirectory) throws -> String {
        for (name, text) in [("v1.json", v1), ("v2.json", v2), ("v3.json", v3),
                             ("rows.jsonl", "{\"title\":\"Dune\",\"pages\":412}\n{\"title\":\"Emma\"}\n")] {
            try text.write(toFile: directory.appending(name), atomically: true, encoding: .utf8)
        }
        let store = directory.appending("lib.strata")
        #expect(try Inspector.run(["create", store, "--schema", directory.appending("v1.json")]).status == 0)
        #expect(try Inspector.run(["import", store, "Book", directory.appending("rows.jsonl")]).status == 0)
        return store
    }

    static func files(_ store: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: store) where name.hasPrefix("wal-") || name.hasPrefix("snapshot-") {
            result[name] = FileManager.default.contents(atPath: "\(store)/\(name)")
        }
        return result
    }

    @Test func dryRunPrintsThePlanAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Self.makeStore(directory)
        let before = try Self.files(store)
        let run = try Inspector.run(["migrate", store, "--schema", directory.appending("v2.json"), "--dry-run"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            lightweight  attribute 'Book.title' was renamed to 'name'              0 rows
            lightweight  attribute 'Book.pages' changed type from int16 to double  2 rows
            lightweight  attribute 'Book.language' was added (with a default)      0 rows
            3 changes, all lightweight: `strata migrate` without --dry-run makes them in one transaction.

            """)
        #expect(try Self.files(store) == before)
        let custom = try Inspector.run(["migrate", store, "--schema", directory.appending("v3.json"), "--dry-run"])
        #expect(custom.status == 10)
        #expect(custom.stdout == """
            custom  attribute 'Book.title' changed type from string to date  2 rows
                needs a custom stage: string → date is not a widening (only int16 → int32 → int64 and integer → double are)
            1 change, 1 needing a custom stage: migrate in the application with a MigrationPlan and MigrationStage.custom.

            """)
        #expect(try Self.files(store) == before)
    }

    @Test func migrateRunsALightweightMigrationAndHistoryListsIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Self.makeStore(directory)
        let run = try Inspector.run(["migrate", store, "--schema", directory.appending("v2.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("Migrated \(store) at LSN 3: 3 changes."))
        let query = try Inspector.run(["query", store, "Book", "--sort", "name"])
        #expect(query.stdout.contains("Dune  412.0  en"))
        #expect(query.stdout.contains("Emma    nil  en"))
        let history = try Inspector.run(["schema", store, "--history"])
        #expect(history.stdout == """
            version  LSN  label  what
            1        1    -      created
            2        3    -      migrated, 3 changes
                attribute 'Book.title' was renamed to 'name'
                attribute 'Book.pages' changed type from int16 to double
                attribute 'Book.language' was added (with a default)

            """)
        let log = try Inspector.run(["log", store])
        #expect(log.stdout.contains("batch insert  Book +2"), "a transaction before the migration is decoded with its own schema: \(log.stdout)")
        #expect(log.stdout.contains("migration"))
        // Again: nothing to do.
        let again = try Inspector.run(["migrate", store, "--schema", directory.appending("v2.json")])
        #expect(again.stdout.hasPrefix("Nothing to migrate"))
    }

    @Test func aChangeThatNeedsCodeIsRefusedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Self.makeStore(directory)
        let before = try Self.files(store)
        let run = try Inspector.run(["migrate", store, "--schema", directory.appending("v3.json")])
        #expect(run.status == 10)
        #expect(run.stderr.contains("nothing was written"))
        #expect(run.stderr.contains("attribute 'Book.title' changed type from string to date — needs a custom stage"))
        #expect(try Self.files(store) == before)
    }
}
