import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// To-one and to-many relationships keep their inverses consistent, before and after save.
@Suite struct RelationshipTests {
    /// Primary keys of `objects`, for comparisons.
    static func keys(_ objects: [ManagedObject]) -> [Int64] { objects.map(\.objectID.primaryKey) }

    @Test func toManyFollowsToOneAndBack() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        let (adaID, graceID) = try context.performAndWait {
            let ada = try context.insert("Author"), grace = try context.insert("Author")
            try ada.setValue("Ada", forKey: "name")
            try grace.setValue("Grace", forKey: "name")
            let one = try context.insert("Book"), two = try context.insert("Book")
            try one.setValue("One", forKey: "title")
            try two.setValue("Two", forKey: "title")
            try ada.add(one, toKey: "books")
            try two.setObject(ada, forKey: "author")
            #expect(Self.keys(try ada.objects(forKey: "books")) == Self.keys([one, two]))
            #expect(try one.object(forKey: "author") === ada)
            #expect(try ada.value(forKey: "name") == "Ada")
            try context.save()

            // Moving a book moves it between both to-many sides.
            try grace.add(two, toKey: "books")
            #expect(Self.keys(try ada.objects(forKey: "books")) == Self.keys([one]))
            #expect(Self.keys(try grace.objects(forKey: "books")) == Self.keys([two]))
            try ada.remove(one, fromKey: "books")
            #expect(try one.object(forKey: "author") == nil)
            #expect(try ada.objects(forKey: "books").isEmpty)
            // Removing an object that is not in the relationship changes nothing.
            try ada.remove(two, fromKey: "books")
            #expect(try two.object(forKey: "author") === grace)
            try context.save()
            return (ada.objectID, grace.objectID)
        }
        let fresh = fixture.context()
        try fresh.performAndWait { () throws in
            #expect(try fresh.object(with: adaID).objects(forKey: "books").isEmpty)
            let books = try fresh.object(with: graceID).objects(forKey: "books")
            #expect(try books.map { try $0.string("title") } == ["Two"])
        }
    }

    @Test func oneToOneUnhooksPreviousPartners() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        let ids = try context.performAndWait {
            let ada = try context.insert("Author"), grace = try context.insert("Author")
            try ada.setValue("Ada", forKey: "name")
            try grace.setValue("Grace", forKey: "name")
            let p1 = try context.insert("Passport"), p2 = try context.insert("Passport")
            try p1.setValue("P1", forKey: "number")
            try p2.setValue("P2", forKey: "number")
            try ada.setObject(p1, forKey: "passport")
            try grace.setObject(p2, forKey: "passport")
            #expect(try p1.object(forKey: "holder") === ada)
            try context.save()

            // Ada takes Grace's passport: Grace and Ada's old passport are unhooked.
            try ada.setObject(p2, forKey: "passport")
            #expect(try p2.object(forKey: "holder") === ada)
            #expect(try grace.object(forKey: "passport") == nil)
            #expect(try p1.object(forKey: "holder") == nil)
            // From the other side: p1 takes Grace.
            try p1.setObject(grace, forKey: "holder")
            #expect(try grace.object(forKey: "passport") === p1)
            // Clearing one side clears the other.
            try ada.setObject(nil, forKey: "passport")
            #expect(try p2.object(forKey: "holder") == nil)
            try context.save()
            return [ada, grace, p1, p2].map(\.objectID)
        }
        let dump = GraphDump(fixture.store)
        #expect(dump.entities["Author"]?[ids[0].primaryKey]?["passport"] == .null)
        #expect(dump.entities["Author"]?[ids[1].primaryKey]?["passport"] == .int(ids[2].primaryKey))
        #expect(dump.entities["Passport"]?[ids[2].primaryKey]?["holder"] == .int(ids[1].primaryKey))
        #expect(dump.entities["Passport"]?[ids[3].primaryKey]?["holder"] == .null)
    }

    @Test func toManyAccessorsRejectToOneKeysAndViceVersa() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        try context.performAndWait { () throws in
            let author = try context.insert("Author")
            let book = try context.insert("Book")
            #expect(throws: StrataError.self) { try author.objects(forKey: "passport") }
            #expect(throws: StrataError.self) { try author.object(forKey: "books") }
            #expect(throws: StrataError.self) { try author.add(book, toKey: "name") }
            let error = #expect(throws: StrataError.self) { try author.setObject(book, forKey: "name") }
            #expect(error?.code == .unknownKey)
            #expect(error?.message.contains("attribute") == true)
        }
    }
}
