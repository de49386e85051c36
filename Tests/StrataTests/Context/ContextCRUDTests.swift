import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Insert, read, update and delete through a context, typed getters, and the typed errors
/// for unknown keys and wrong types.
@Suite struct ContextCRUDTests {
    @Test func insertReadUpdateDelete() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let id = try writer.performAndWait {
            let author = try writer.insert("Author")
            #expect(author.isInserted && !author.isFault)
            #expect(try author.bool("active") == true, "the default value is set at insert")
            try author.setValue("Ada", forKey: "name")
            try author.setValue(.int(36), forKey: "age")
            try writer.save()
            #expect(!author.isInserted && !author.hasChanges)
            return author.objectID
        }
        #expect(fixture.store.rowCounts["Author"] == 1)

        let reader = fixture.context("reader")
        try reader.performAndWait { () throws in
            let author = try reader.existingObject(with: id)
            #expect(try author.string("name") == "Ada")
            #expect(try author.int("age") == 36)
            #expect(try author.value(forKey: "rating") == .null)
            #expect(try author.double("rating") == nil)
            try author.setValue(.double(4.5), forKey: "rating")
            #expect(author.isUpdated)
            try reader.save()
        }
        try writer.performAndWait { () throws in
            let author = writer.object(with: id)
            writer.refresh(author, mergeChanges: false)
            #expect(try author.double("rating") == 4.5)
            writer.delete(author)
            #expect(author.isDeleted)
            try writer.save()
        }
        #expect(fixture.store.rowCounts["Author"] == 0)
        try fixture.reopen()
        #expect(fixture.store.rowCounts["Author"] == 0)
    }

    @Test func typedGettersReturnEveryType() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        let born = Date(timeIntervalSince1970: -4_000_000_000.25)
        let tag = UUID()
        let photo = Data([0, 1, 2, 255])
        try context.performAndWait { () throws in
            let author = try context.insert("Author")
            try author.setValues(["name": "Ada", "born": .date(born), "tag": .uuid(tag), "photo": .binary(photo),
                                  "rating": 2.5, "age": 36, "active": false])
            try context.save()
            context.refresh(author, mergeChanges: false)
            #expect(author.isFault)
            #expect(try author.string("name") == "Ada")
            #expect(try author.date("born") == born)
            #expect(try author.uuid("tag") == tag)
            #expect(try author.data("photo") == photo)
            #expect(try author.double("rating") == 2.5)
            #expect(try author.int("age") == 36)
            #expect(try author.bool("active") == false)
        }
    }

    @Test func unknownKeyNamesTheNearestKey() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        try context.performAndWait { () throws in
            let author = try context.insert("Author")
            let read = #expect(throws: StrataError.self) { try author.value(forKey: "nane") }
            #expect(read?.code == .unknownKey)
            #expect(read?.key == "nane" && read?.entity == "Author")
            #expect(read?.message.contains("did you mean 'name'") == true, "\(read?.message ?? "")")
            let write = #expect(throws: StrataError.self) { try author.setValue("x", forKey: "rateing") }
            #expect(write?.code == .unknownKey)
            #expect(write?.message.contains("'rating'") == true, "\(write?.message ?? "")")
            let toMany = #expect(throws: StrataError.self) { try author.value(forKey: "books") }
            #expect(toMany?.code == .unknownKey)
            #expect(toMany?.message.contains("to-many") == true)
            let entity = #expect(throws: StrataError.self) { try context.insert("Autor") }
            #expect(entity?.code == .unknownEntity)
            #expect(entity?.message.contains("'Author'") == true)
        }
    }

    @Test func wrongTypesAreTypedErrors() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        try context.performAndWait { () throws in
            let author = try context.insert("Author")
            try author.setValue("Ada", forKey: "name")
            let set = #expect(throws: StrataError.self) { try author.setValue(.int(3), forKey: "name") }
            #expect(set?.code == .typeMismatch && set?.key == "name")
            let range = #expect(throws: StrataError.self) { try author.setValue(.int(40_000), forKey: "age") }
            #expect(range?.code == .typeMismatch, "40,000 does not fit an int16")
            let get = #expect(throws: StrataError.self) { try author.int("name") }
            #expect(get?.code == .typeMismatch)
            let relationship = #expect(throws: StrataError.self) { try author.setValue("x", forKey: "passport") }
            #expect(relationship?.code == .typeMismatch)
            let book = try context.insert("Book")
            let wrongEntity = #expect(throws: StrataError.self) { try author.setObject(book, forKey: "passport") }
            #expect(wrongEntity?.code == .typeMismatch)
            #expect(try author.string("name") == "Ada", "a rejected value changes nothing")
        }
    }

    @Test func objectOfAnotherContextIsRejected() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let one = fixture.context("one"), two = fixture.context("two")
        let book = try one.performAndWait { try one.insert("Book") }
        try two.performAndWait { () throws in
            let author = try two.insert("Author")
            let error = #expect(throws: StrataError.self) {
                try one.performAndWait { try book.setObject(author, forKey: "author") }
            }
            #expect(error?.code == .misuse)
        }
    }

    @Test func saveOffTheQueueIsMisuse() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .misuse)
    }

    @Test func objectWithIDOfUnknownEntityOrStoreFailsOnAccess() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        try context.performAndWait { () throws in
            let author = try context.insert("Author")
            try author.setValue("Ada", forKey: "name")
            try context.save()
            let ghost = context.object(with: ObjectID(storeID: fixture.store.storeID, entityName: "Ghost", primaryKey: 1))
            let error = #expect(throws: StrataError.self) { try ghost.value(forKey: "name") }
            #expect(error?.code == .unknownEntity)
            let foreign = context.object(with: ObjectID(storeID: UUID(), entityName: "Author", primaryKey: 1))
            let other = #expect(throws: StrataError.self) { try foreign.value(forKey: "name") }
            #expect(other?.code == .unknownEntity, "an ID of another store must not read this store's row")
            let book = try context.insert("Book")
            let link = #expect(throws: StrataError.self) { try book.setObject(foreign, forKey: "author") }
            #expect(link?.code == .unknownEntity, "nor can it be linked to")
        }
    }
}
