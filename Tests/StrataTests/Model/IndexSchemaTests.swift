import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// Indexes in the schema: the builder, the JSON and stored forms, the consistency rules,
/// and adding or removing one as a lightweight migration.
@Suite struct IndexSchemaTests {
    static func person(indexes: [[String]]) -> Entity {
        Entity("Person", indexes: indexes) {
            Attribute("email", .string)
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("age", .int16, optional: true)
            Relationship("team", to: "Team", inverse: "members")
        }
    }

    static func schema(indexes: [[String]]) throws -> Schema {
        try Schema {
            person(indexes: indexes)
            Entity("Team") {
                Attribute("title", .string)
                Relationship("members", to: "Person", inverse: "team", toMany: true)
            }
        }
    }

    @Test func theBuilderKeepsIndexesAndTheJSONRoundTripsThem() throws {
        let schema = try Self.schema(indexes: [["email"], ["lastName", "firstName"], ["team"]])
        #expect(schema.entity(named: "Person")?.indexes == [["email"], ["lastName", "firstName"], ["team"]])
        let json = schema.jsonString(prettyPrinted: false)
        #expect(json.contains(#""indexes":[["email"],["lastName","firstName"],["team"]]"#))
        #expect(try Schema(jsonString: json) == schema)
        #expect(try Schema(storedBytes: schema.encodedForStore()) == schema)
    }

    @Test func aSchemaWithoutIndexesKeepsItsStoredBytes() throws {
        let schema = try Self.schema(indexes: [])
        #expect(!schema.jsonString(prettyPrinted: false).contains("indexes"))
        // An old store's schema (no "indexes" key) reads with no indexes.
        let old = #"{"format":1,"entities":[{"name":"A","attributes":[{"name":"x","type":"int64"}],"relationships":[]}]}"#
        #expect(try Schema(storedBytes: Array(old.utf8)).entities[0].indexes == [])
    }

    @Test func badIndexesAreRefusedWithAMessageThatSaysWhatToList() throws {
        func problem(_ indexes: [[String]]) -> String {
            do {
                _ = try Self.schema(indexes: indexes)
                return "accepted"
            } catch let error as StrataError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(problem([["emial"]]).contains("lists 'emial', which is not a property of Person"))
        #expect(problem([["emial"]]).contains("(it has email, firstName, lastName, age, team)"))
        #expect(problem([[]]).contains("lists no properties"))
        #expect(problem([["email", "email"]]).contains("lists 'email' twice"))
        #expect(problem([["age"], ["age"]]).contains("repeats the index [age]"))
    }

    @Test func aToManyIndexIsRefused() {
        #expect(throws: StrataError.self) {
            try Schema {
                Self.person(indexes: [])
                Entity("Team", indexes: [["members"]]) {
                    Attribute("title", .string)
                    Relationship("members", to: "Person", inverse: "team", toMany: true)
                }
            }
        }
    }

    @Test func addingAndRemovingAnIndexIsLightweightAndRewritesNoRow() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = try PersistentStore.open(at: directory.path, schema: Self.schema(indexes: []))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for i in 0..<50 {
                let person = try context.insert("Person")
                try person.setValues(["email": .string("p\(i)@x"), "firstName": .string("F"), "lastName": .string("L\(i % 7)"),
                                      "age": .int(Int64(i))])
            }
            try context.save()
        }
        try store.close()
        let indexed = try Self.schema(indexes: [["age"], ["lastName", "firstName"]])
        let changes = indexed.migrationChanges(from: store.schema, rowCounts: ["Person": 50])
        #expect(changes.map(\.kind) == [.indexAdded, .indexAdded])
        #expect(changes.allSatisfy { $0.isLightweight && $0.rowsTouched == 0 })
        store = try PersistentStore.open(at: directory.path, schema: indexed)
        #expect(store.schema.entity(named: "Person")?.indexes == [["age"], ["lastName", "firstName"]])
        let strategy = try store.fetchStrategy(FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "age == 7")))
        #expect(strategy.lookupIndex == ["age"])
        #expect(try store.fetchRows(FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "age BETWEEN {10, 12}"))).rows.map(\.primaryKey) == [11, 12, 13])
        try store.close()
        // Reopened without the index: removed, lightweight, and the fetch scans again.
        store = try PersistentStore.open(at: directory.path, schema: Self.schema(indexes: [["lastName", "firstName"]]))
        defer { try? store.close() }
        #expect(store.schema.entity(named: "Person")?.indexes == [["lastName", "firstName"]])
        let scan = try store.fetchStrategy(FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "age == 7")))
        #expect(scan.lookupIndex == nil)
        #expect(store.schemaHistory.last?.changes.contains { $0.contains("index [age] was removed") } == true)
    }
}
