import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Every lightweight change: the migrated rows equal the old ones with the change applied
/// (same primary keys, so same object IDs; foreign keys, so relationships, intact), after
/// the open that migrates, a reopen that replays the migration record, and a snapshot.
@Suite struct LightweightMigrationTests {
    typealias F = MigrationFixtures

    @Test func addOptionalAttribute() throws {
        let (fs, before) = try F.makeStore()
        let v2 = F.edit(F.v1, entity: "Author") { $0.attributes.append(Attribute("email", .string, optional: true)) }
        let after = try F.migrate(fs, to: v2)
        #expect(after == before.mapRows("Author") { $0["email"] = .null })
    }

    @Test func addAttributeWithDefaultSharesOneColumnAndKeepsLaterWrites() throws {
        let (fs, before) = try F.makeStore()
        let v2 = F.edit(F.v1, entity: "Book") {
            $0.attributes.append(Attribute("language", .string, default: .string("en")))
            $0.attributes.append(Attribute("stars", .double, default: .double(2.5)))
        }
        let store = try PersistentStore.open(at: F.directory, schema: v2, options: F.options(fs))
        #expect(F.dump(store) == before.mapRows("Book") { $0["language"] = .string("en"); $0["stars"] = .double(2.5) })
        // The log got one small record, not a row per book.
        var readOnly = F.options(fs).storage
        readOnly.readOnly = true
        let (engine, recovered) = try StorageEngine.open(at: F.directory, options: readOnly)
        #expect(recovered.records.last?.kind == TransactionKind.migration.rawValue)
        #expect((recovered.records.last?.payload.count ?? .max) < 1024)
        try engine.close()
        // Write one book, then reopen: only that row differs from the default.
        let key = before["Book"]!.keys.min()!
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let book = context.object(with: ObjectID(storeID: store.storeID, entityName: "Book", primaryKey: key))
            try book.setValue(.string("fr"), forKey: "language")
            try context.save()
        }
        try store.close()
        let after = try F.migrate(fs, to: v2)
        var expected = before.mapRows("Book") { $0["language"] = .string("en"); $0["stars"] = .double(2.5) }
        expected["Book"]![key]!["language"] = .string("fr")
        #expect(after == expected)
    }

    @Test func removeAttribute() throws {
        let (fs, before) = try F.makeStore()
        let v2 = F.edit(F.v1, entity: "Author") { $0.attributes.removeAll { $0.name == "nickname" } }
        #expect(try F.migrate(fs, to: v2) == before.mapRows("Author") { $0["nickname"] = nil })
    }

    @Test func renameAttribute() throws {
        let (fs, before) = try F.makeStore()
        let v2 = F.edit(F.v1, entity: "Book") {
            $0.attributes[0] = Attribute("name", .string, originalName: "title")
        }
        #expect(try F.migrate(fs, to: v2) == before.mapRows("Book") { $0["name"] = $0.removeValue(forKey: "title") })
    }

    @Test func renameEntityKeepsKeysAndRelationships() throws {
        let (fs, before) = try F.makeStore()
        var v2 = F.v1
        v2.entities[0].name = "Writer"
        v2.entities[0].originalName = "Author"
        v2.entities[1].relationships[0].destination = "Writer"
        let after = try F.migrate(fs, to: v2)
        var expected = before
        expected["Writer"] = expected.removeValue(forKey: "Author")
        #expect(after == expected)
        // Following the relationship through a context still works.
        let store = try PersistentStore.open(at: F.directory, schema: v2, options: F.options(fs))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for (key, row) in expected["Book"]! {
                let book = context.object(with: ObjectID(storeID: store.storeID, entityName: "Book", primaryKey: key))
                let writer = try book.object(forKey: "author")
                guard case .int(let writerKey) = row["author"]! else { Issue.record("book without author"); continue }
                #expect(writer?.objectID.primaryKey == writerKey)
                #expect(writer?.objectID.entityName == "Writer")
            }
        }
        try store.close()
    }

    @Test func addAndRemoveEntity() throws {
        let (fs, before) = try F.makeStore()
        var v2 = F.v1
        v2.entities.append(Entity("Shelf") { Attribute("label", .string) })
        var after = try F.migrate(fs, to: v2)
        #expect(after == before.merging(["Shelf": [:]]) { a, _ in a })
        // Remove Book (and the relationship to it).
        var v3 = v2
        v3.entities.removeAll { $0.name == "Book" }
        v3.entities[0].relationships = []
        after = try F.migrate(fs, to: v3)
        var expected = before
        expected["Book"] = nil
        expected["Shelf"] = [:]
        #expect(after == expected)
    }

    @Test func addAndRemoveRelationship() throws {
        let (fs, before) = try F.makeStore()
        var v2 = F.v1
        v2.entities.append(Entity("Publisher") {
            Attribute("name", .string)
            Relationship("books", to: "Book", inverse: "publisher", toMany: true)
        })
        v2.entities[1].relationships.append(Relationship("publisher", to: "Publisher", inverse: "books"))
        var expected = before.mapRows("Book") { $0["publisher"] = .null }
        expected["Publisher"] = [:]
        #expect(try F.migrate(fs, to: v2) == expected)
        // And remove it again.
        #expect(try F.migrate(fs, to: F.v1) == before)
    }

    @Test(arguments: [false, true]) func requiredToOptionalAndOptionalToRequiredWithDefault(fromSnapshot: Bool) throws {
        let (fs, before) = try F.makeStore(checkpointed: fromSnapshot)
        let v2 = F.edit(F.v1, entity: "Author") {
            $0.attributes[0].isOptional = true                       // name: required → optional
            $0.attributes[1].isOptional = false                      // age: optional → required…
            $0.attributes[1].defaultValue = .int(18)                 // …with a default for the nils
        }
        #expect(try F.migrate(fs, to: v2) == before.mapRows("Author") { if $0["age"] == .null { $0["age"] = .int(18) } })
    }

    @Test(arguments: [false, true]) func wideningTypes(fromSnapshot: Bool) throws {
        let (fs, before) = try F.makeStore(checkpointed: fromSnapshot)
        let v2 = F.edit(F.v1, entity: "Author") {
            $0.attributes[1].type = .int32                           // age int16 → int32
            $0.attributes[2].type = .int64                           // rating int32 → int64
        }
        #expect(try F.migrate(fs, to: v2) == before)
        let v3 = F.edit(v2, entity: "Author") { $0.attributes[1].type = .int64 }
        #expect(try F.migrate(fs, to: v3) == before)
        let v4 = F.edit(F.edit(v3, entity: "Author") { $0.attributes[2].type = .double; $0.attributes[2].defaultValue = .double(0) },
                        entity: "Book") { $0.attributes[1].type = .double }
        let after = try F.migrate(fs, to: v4)
        func toDouble(_ value: AttributeValue?) -> AttributeValue? {
            if case .int(let i)? = value { return .double(Double(i)) }
            return value
        }
        #expect(after == before.mapRows("Author") { $0["rating"] = toDouble($0["rating"]) }
                                .mapRows("Book") { $0["pages"] = toDouble($0["pages"]) })
    }

    @Test func defaultsValidationAndDeleteRulesNeedNoRecord() throws {
        let (fs, before) = try F.makeStore()
        let lsn = try PersistentStore.open(at: F.directory, schema: F.v1, options: F.options(fs)).lastLSN
        var v2 = F.edit(F.v1, entity: "Author") {
            $0.attributes[2].defaultValue = .int(5)
            $0.attributes[0] = $0.attributes[0].length(1...100)
            $0.relationships[0].deleteRule = .deny
        }
        v2 = try v2.validated()
        let store = try PersistentStore.open(at: F.directory, schema: v2, options: F.options(fs))
        #expect(store.lastLSN == lsn)
        #expect(F.dump(store) == before)
        try store.close()
    }

    @Test func historyListsEveryVersion() throws {
        let (fs, _) = try F.makeStore()
        let v2 = F.edit(F.v1, entity: "Author") { $0.attributes.append(Attribute("email", .string, optional: true)) }
        _ = try F.migrate(fs, to: v2)    // checkpoints: the history is then in the snapshot
        let v3 = F.edit(v2, entity: "Author") { $0.attributes.removeAll { $0.name == "email" } }
        let store = try PersistentStore.open(at: F.directory, schema: v3, options: F.options(fs))
        let history = store.schemaHistory
        #expect(history.count == 3)
        #expect(history.first?.lsn == 1)
        #expect(history.map(\.changes) == [[], ["attribute 'Author.email' was added (optional)"], ["attribute 'Author.email' was removed"]])
        #expect(history.last?.lsn == store.lastLSN)
        try store.close()
    }
}
