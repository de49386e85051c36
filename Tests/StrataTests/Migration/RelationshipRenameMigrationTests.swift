import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Renaming relationships with `originalName`: a lightweight migration keeps the foreign
/// keys under the new name (object IDs unchanged), and the inverse, renamed in the same
/// migration or not, still pairs the same objects.
@Suite struct RelationshipRenameMigrationTests {
    typealias F = MigrationFixtures

    /// Library v1 with `Book.author` renamed to `writer` and `Author.books` to `works`.
    static let bothRenamed = try! Schema {
        Entity("Author") {
            Attribute("name", .string)
            Attribute("age", .int16, optional: true)
            Attribute("rating", .int32, default: .int(0))
            Attribute("nickname", .string, optional: true)
            Relationship("works", to: "Book", inverse: "writer", toMany: true, deleteRule: .cascade, originalName: "books")
        }
        Entity("Book") {
            Attribute("title", .string)
            Attribute("pages", .int32, optional: true)
            Relationship("writer", to: "Author", inverse: "works", originalName: "author")
        }
    }

    /// Every book's author key, and each author's books through the to-many side, both ways.
    static func checkPairs(_ fs: SimulatedFileSystem, schema: Schema, expected: StoreDump,
                           toOne: String, toMany: String) throws {
        let store = try PersistentStore.open(at: F.directory, schema: schema, options: F.options(fs))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for (key, row) in expected["Book"]! {
                let book = context.object(with: ObjectID(storeID: store.storeID, entityName: "Book", primaryKey: key))
                #expect(try book.object(forKey: toOne)?.objectID.primaryKey == row[toOne]?.int64Value)
            }
            for key in expected["Author"]!.keys {
                let author = context.object(with: ObjectID(storeID: store.storeID, entityName: "Author", primaryKey: key))
                let books = try author.objects(forKey: toMany).map(\.objectID.primaryKey).sorted()
                #expect(books == expected["Book"]!.filter { $0.value[toOne] == .int(key) }.keys.sorted())
            }
        }
        try store.close()
    }

    @Test func renamingBothSidesKeepsKeysAndPairs() throws {
        let (fs, before) = try F.makeStore()
        let changes = Self.bothRenamed.migrationChanges(from: F.v1)
        #expect(changes.map(\.kind) == [.relationshipRenamed, .relationshipRenamed])
        #expect(changes.allSatisfy { $0.isLightweight })
        let after = try F.migrate(fs, to: Self.bothRenamed)
        let expected = before.mapRows("Book") { $0["writer"] = $0.removeValue(forKey: "author") }
        #expect(after == expected)
        #expect(after["Book"]!.values.contains { $0["writer"] != .null }, "the fixture relates books")
        try Self.checkPairs(fs, schema: Self.bothRenamed, expected: expected, toOne: "writer", toMany: "works")
    }

    @Test func renamingOneSideUpdatesTheOthersInverse() throws {
        let (fs, before) = try F.makeStore()
        // Only the to-one side is renamed; the to-many keeps its name and names the new inverse.
        var v2 = F.v1
        v2.entities[1].relationships[0] = Relationship("writer", to: "Author", inverse: "books", originalName: "author")
        v2.entities[0].relationships[0].inverse = "writer"
        #expect(v2.migrationChanges(from: F.v1).map(\.kind) == [.relationshipRenamed])
        let expected = before.mapRows("Book") { $0["writer"] = $0.removeValue(forKey: "author") }
        #expect(try F.migrate(fs, to: v2) == expected)
        try Self.checkPairs(fs, schema: v2, expected: expected, toOne: "writer", toMany: "books")
    }

    @Test func withoutOriginalNameARenameIsARemoveAndAnAdd() throws {
        var v2 = Self.bothRenamed
        v2.entities[1].relationships[0].originalName = nil
        v2.entities[0].relationships[0].originalName = nil
        let kinds = Set(v2.migrationChanges(from: F.v1).map(\.kind))
        #expect(kinds == [.relationshipAdded, .relationshipRemoved])
        // Made anyway (both lightweight), the books lose their author: the keys are not guessed.
        let (fs, before) = try F.makeStore()
        let after = try F.migrate(fs, to: v2)
        #expect(after == before.mapRows("Book") { $0["author"] = nil; $0["writer"] = .null })
    }

    @Test func theRenameRoundTripsThroughJSONAndIsNotStored() throws {
        let json = Self.bothRenamed.jsonString(prettyPrinted: false)
        #expect(json.contains(#""originalName":"author""#))
        #expect(try Schema(jsonString: json) == Self.bothRenamed)
        #expect(try Schema(storedBytes: Self.bothRenamed.encodedForStore()) == Self.bothRenamed.withoutOriginalNames)
        #expect(Self.bothRenamed.withoutOriginalNames.entities.allSatisfy { $0.relationships.allSatisfy { $0.originalName == nil } })
    }
}
