import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Inserted / updated / deleted sets, `hasChanges`, `changedValues()`,
/// `committedValues(forKeys:)`, `rollback()` and `reset()`.
@Suite struct ChangeTrackingTests {
    /// Saves notes titled `titles` and returns their IDs in order.
    static func seed(_ fixture: StoreFixture, _ titles: [String]) throws -> [ObjectID] {
        let context = fixture.context("seed")
        return try context.performAndWait {
            let notes = try titles.map { title in
                let note = try context.insert("Note")
                try note.setValues(["title": .string(title), "body": "b"])
                return note
            }
            try context.save()
            return notes.map(\.objectID)
        }
    }

    @Test func setsAndHasChangesFollowEveryKindOfChange() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let ids = try Self.seed(fixture, ["a", "b", "c"])
        let context = fixture.context()
        try context.performAndWait { () throws in
            #expect(!context.hasChanges)
            let inserted = try context.insert("Note")
            try inserted.setValues(["title": "new", "body": "n"])
            let updated = context.object(with: ids[0])
            try updated.setValue("a2", forKey: "title")
            let deleted = context.object(with: ids[1])
            context.delete(deleted)
            let untouched = try context.existingObject(with: ids[2])

            #expect(context.hasChanges)
            #expect(context.insertedObjects.map(\.objectID) == [inserted.objectID])
            #expect(context.updatedObjects.map(\.objectID) == [updated.objectID])
            #expect(context.deletedObjects.map(\.objectID) == [deleted.objectID])
            #expect(inserted.isInserted && !inserted.isUpdated && inserted.hasChanges)
            #expect(updated.isUpdated && updated.hasChanges)
            #expect(deleted.isDeleted && deleted.hasChanges)
            #expect(!untouched.hasChanges)

            // Setting a value back to the committed one is not a change.
            try updated.setValue("a", forKey: "title")
            #expect(!updated.isUpdated)
            #expect(context.updatedObjects.isEmpty)

            // Inserting then deleting leaves nothing to save.
            context.delete(inserted)
            #expect(context.insertedObjects.isEmpty && context.deletedObjects.map(\.objectID) == [deleted.objectID])
            try context.save()
            #expect(!context.hasChanges)
        }
        #expect(fixture.store.rowCounts["Note"] == 2)
    }

    @Test func changedAndCommittedValues() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let ids = try Self.seed(fixture, ["a"])
        let context = fixture.context()
        try context.performAndWait { () throws in
            let note = context.object(with: ids[0])
            #expect(note.changedValues().isEmpty)
            try note.setValue("a2", forKey: "title")
            try note.setValue(.int(5), forKey: "count")
            #expect(note.changedValues() == ["title": "a2", "count": 5])
            #expect(try note.committedValues(forKeys: ["title", "count"]) == ["title": "a", "count": 0])
            #expect(try note.committedValues() == ["title": "a", "body": "b", "count": 0])
            let unknown = #expect(throws: StrataError.self) { try note.committedValues(forKeys: ["titel"]) }
            #expect(unknown?.code == .unknownKey)

            let fresh = try context.insert("Note")
            try fresh.setValue("f", forKey: "title")
            #expect(fresh.changedValues() == ["title": "f", "body": .null, "count": 0])
            try fresh.setValue("g", forKey: "body")
            #expect(try fresh.committedValues() == [:])

            try context.save()
            #expect(note.changedValues().isEmpty)
            #expect(try note.committedValues(forKeys: ["title"]) == ["title": "a2"])
        }
    }

    @Test func rollbackDiscardsEveryUnsavedChange() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let ids = try Self.seed(fixture, ["a", "b"])
        let context = fixture.context()
        try context.performAndWait { () throws in
            let inserted = try context.insert("Note")
            try inserted.setValue("new", forKey: "title")
            let updated = context.object(with: ids[0])
            try updated.setValue("changed", forKey: "title")
            let deleted = context.object(with: ids[1])
            context.delete(deleted)

            context.rollback()
            #expect(!context.hasChanges)
            #expect(try updated.string("title") == "a")
            #expect(!deleted.isDeleted)
            #expect(try deleted.string("title") == "b")
            let gone = #expect(throws: StrataError.self) { try inserted.string("title") }
            #expect(gone?.code == .misuse, "a rolled-back insert is no longer registered")
            try context.save()
        }
        #expect(GraphDump(fixture.store).entities["Note"]?.values.compactMap { $0["title"] }.sorted { "\($0)" < "\($1)" } == ["a", "b"])
        #expect(fixture.store.rowCounts["Note"] == 2)
    }

    @Test func resetForgetsEveryObject() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let ids = try Self.seed(fixture, ["a"])
        let context = fixture.context()
        try context.performAndWait { () throws in
            let note = context.object(with: ids[0])
            try note.setValue("changed", forKey: "title")
            _ = try context.insert("Note")
            context.reset()
            #expect(!context.hasChanges)
            #expect(context.registeredObjects.isEmpty)
            let stale = #expect(throws: StrataError.self) { try note.string("title") }
            #expect(stale?.code == .misuse)
            let again = context.object(with: ids[0])
            #expect(again !== note)
            #expect(try again.string("title") == "a")
            try context.save()
        }
        #expect(fixture.store.rowCounts["Note"] == 1)
    }
}
