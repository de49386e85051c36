import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Faults, `existingObject(with:)`, `refresh(_:mergeChanges:)` and uniquing.
@Suite struct FaultingTests {
    /// Saves one note (title "t0", body "b0") and returns its ID.
    static func seedNote(_ fixture: StoreFixture) throws -> ObjectID {
        let context = fixture.context("seed")
        return try context.performAndWait {
            let note = try context.insert("Note")
            try note.setValues(["title": "t0", "body": "b0"])
            try context.save()
            return note.objectID
        }
    }

    @Test func objectWithReadsNothingUntilFirstAccess() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let id = try Self.seedNote(fixture)
        let context = fixture.context()
        try context.performAndWait { () throws in
            let note = context.object(with: id)
            #expect(note.isFault)
            #expect(note.committed == nil, "no row data was read")
            #expect(!note.hasChanges)
            // A row deleted before the fault fires: the fault itself was created without a read.
            let missing = context.object(with: ObjectID(storeID: id.storeID, entityName: "Note", primaryKey: 999))
            #expect(missing.isFault)
            let error = #expect(throws: StrataError.self) { try missing.string("title") }
            #expect(error?.code == .objectNotFound)

            #expect(try note.string("title") == "t0")
            #expect(!note.isFault)
            #expect(note.committed != nil)
        }
    }

    @Test func existingObjectThrowsForADeletedRow() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let id = try Self.seedNote(fixture)
        let deleter = fixture.context("deleter")
        try deleter.performAndWait { () throws in
            #expect(!(try deleter.existingObject(with: id).isFault), "existingObject returns a loaded object")
            deleter.delete(deleter.object(with: id))
            let pending = #expect(throws: StrataError.self) { try deleter.existingObject(with: id) }
            #expect(pending?.code == .objectNotFound, "deleted in this context")
            try deleter.save()
        }
        let other = fixture.context("other")
        try other.performAndWait { () throws in
            let error = #expect(throws: StrataError.self) { try other.existingObject(with: id) }
            #expect(error?.code == .objectNotFound)
            #expect(error?.entity == "Note")
        }
    }

    @Test func uniquingGivesOneObjectPerIDPerContext() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context(), other = fixture.context()
        let (authorID, bookID) = try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Ada", forKey: "name")
            let book = try context.insert("Book")
            try book.setValue("Notes", forKey: "title")
            try book.setObject(author, forKey: "author")
            #expect(context.object(with: author.objectID) === author, "an inserted object is registered")
            try context.save()
            return (author.objectID, book.objectID)
        }
        try context.performAndWait { () throws in
            let author = context.object(with: authorID)
            #expect(try context.existingObject(with: authorID) === author)
            let book = context.object(with: bookID)
            #expect(try book.object(forKey: "author") === author)
            #expect(try author.objects(forKey: "books").first === book)
        }
        let elsewhere = try other.performAndWait { try other.existingObject(with: authorID) }
        let here = context.performAndWait { context.object(with: authorID) }
        #expect(elsewhere !== here, "each context has its own object")
        #expect(elsewhere.context === other && here.context === context)
    }

    @Test func refreshWithoutMergingTurnsTheObjectBackIntoAFault() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let id = try Self.seedNote(fixture)
        let context = fixture.context(), other = fixture.context()
        try context.performAndWait { () throws in
            let note = context.object(with: id)
            #expect(try note.string("title") == "t0")
            try note.setValue("mine", forKey: "body")
            try other.performAndWait { () throws in
                try other.object(with: id).setValue("theirs", forKey: "title")
                try other.save()
            }
            #expect(try note.string("title") == "t0", "a loaded object keeps the values it read")
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            #expect(!note.hasChanges && !context.hasChanges, "pending changes are discarded")
            #expect(try note.string("title") == "theirs")
            #expect(try note.string("body") == "b0")
        }
    }

    @Test func refreshMergingKeepsPendingChangesOnTopOfStoreValues() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let id = try Self.seedNote(fixture)
        let context = fixture.context(), other = fixture.context()
        try context.performAndWait { () throws in
            let note = context.object(with: id)
            try note.setValue("mine", forKey: "body")
            try other.performAndWait { () throws in
                let theirs = other.object(with: id)
                try theirs.setValue("theirs", forKey: "title")
                try theirs.setValue("also theirs", forKey: "body")
                try theirs.setValue(.int(7), forKey: "count")
                try other.save()
            }
            context.refresh(note, mergeChanges: true)
            #expect(try note.string("title") == "theirs")
            #expect(try note.int("count") == 7)
            #expect(try note.string("body") == "mine", "the pending change stays on top")
            #expect(note.changedValues() == ["body": "mine"])
            #expect(try note.committedValues(forKeys: ["body"]) == ["body": "also theirs"])
            // The merge brought the object up to date, so saving is not a conflict.
            try context.save()
        }
        let check = fixture.context()
        try check.performAndWait { () throws in
            let note = try check.existingObject(with: id)
            #expect(try note.string("title") == "theirs")
            #expect(try note.string("body") == "mine")
            #expect(try note.int("count") == 7)
        }
    }

    @Test func refreshMergingAnObjectDeletedInTheStoreForgetsIt() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let id = try Self.seedNote(fixture)
        let context = fixture.context(), other = fixture.context()
        try context.performAndWait { () throws in
            let note = try context.existingObject(with: id)
            try other.performAndWait { () throws in
                other.delete(other.object(with: id))
                try other.save()
            }
            context.refresh(note, mergeChanges: true)
            #expect(!context.hasChanges)
            let error = #expect(throws: StrataError.self) { try context.existingObject(with: id) }
            #expect(error?.code == .objectNotFound)
        }
    }
}
