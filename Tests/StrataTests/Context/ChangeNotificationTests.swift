import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Save notifications, store change payloads, and merging other contexts' saves.
@Suite struct ChangeNotificationTests {
    /// Inserts notes "a" and "b" and returns their IDs.
    static func seed(_ context: ObjectContext) throws -> (ObjectID, ObjectID) {
        try context.performAndWait { () throws in
            let a = try context.insert("Note"), b = try context.insert("Note")
            try a.setValues(["title": "a", "body": "a"])
            try b.setValues(["title": "b", "body": "b"])
            try context.save()
            return (a.objectID, b.objectID)
        }
    }

    @Test func observeSavesAndObserveChangesCarryTheIDs() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let context = fixture.context()
        let (a, b) = try Self.seed(context)
        let saves = Collected<ContextDidSave>(), changes = Collected<StoreChange>()
        let onQueue = Collected<Bool>()
        let saveToken = context.observeSaves { note in
            saves.append(note)
            onQueue.append(context.isOnQueue)
        }
        let changeToken = fixture.store.observeChanges { changes.append($0) }
        let inserted = try context.performAndWait {
            try context.object(with: a).setValue("a2", forKey: "title")
            context.delete(context.object(with: b))
            let c = try context.insert("Note")
            try c.setValues(["title": "c", "body": "c"])
            try context.save()
            return c.objectID
        }
        let lsn = fixture.store.lastLSN
        #expect(saves.values == [ContextDidSave(lsn: lsn, inserted: [inserted], updated: [a], deleted: [b])])
        #expect(onQueue.values == [true], "save observers run on the context's queue")
        let change = try #require(changes.values.first)
        #expect(changes.values.count == 1)
        #expect(change.lsn == lsn && change.kind == .save)
        #expect(change.inserted == [inserted] && change.updated == [a] && change.deleted == [b])
        #expect(change.originContext == ObjectIdentifier(context))

        saveToken.cancel()
        changeToken.cancel()
        try context.performAndWait { () throws in
            try context.object(with: a).setValue("a3", forKey: "title")
            try context.save()
        }
        #expect(saves.values.count == 1 && changes.values.count == 1, "cancelled observers hear nothing")
    }

    @Test func changesStreamYieldsEachCommit() async throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let stream = fixture.store.changes
        let context = fixture.context()
        let (a, b) = try Self.seed(context)
        try await context.perform {
            try context.object(with: a).setValue("a2", forKey: "title")
            try context.save()
        }
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        #expect(first.inserted == [a, b] && first.updated.isEmpty && first.deleted.isEmpty)
        #expect(second.updated == [a] && second.inserted.isEmpty)
        #expect(second.lsn == first.lsn + 1)
    }

    @Test func mergeChangesFromAnotherContextsSave() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let writer = fixture.context("writer"), reader = fixture.context("reader")
        let (a, b) = try Self.seed(writer)
        let saves = Collected<ContextDidSave>()
        let token = writer.observeSaves { saves.append($0) }
        defer { token.cancel() }
        try reader.performAndWait { () throws in
            #expect(try reader.object(with: a).string("title") == "a")
            #expect(try reader.object(with: b).string("title") == "b")
            try reader.object(with: a).setValue("reader's body", forKey: "body")
        }
        try writer.performAndWait { () throws in
            try writer.object(with: a).setValue("a2", forKey: "title")
            try writer.object(with: a).setValue("writer's body", forKey: "body")
            writer.delete(writer.object(with: b))
            try writer.save()
        }
        let note = try #require(saves.values.last)
        try reader.performAndWait { () throws in
            #expect(try reader.object(with: a).string("title") == "a", "not merged yet")
            reader.mergeChanges(from: note)
            let merged = reader.object(with: a)
            #expect(try merged.string("title") == "a2")
            #expect(try merged.string("body") == "reader's body", "unsaved changes stay on top")
            #expect(throws: StrataError.self) { try reader.existingObject(with: b) }
            try reader.save()   // merged, so not a conflict
        }
        #expect(GraphDump(fixture.store).entities["Note"]?[a.primaryKey]?["body"] == "reader's body")
    }

    @Test func automaticMergingKeepsAnotherContextFresh() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let writer = fixture.context("writer"), reader = fixture.context("reader")
        let (a, b) = try Self.seed(writer)
        reader.performAndWait { reader.automaticallyMergesChangesFromStore = true }
        #expect(reader.automaticallyMergesChangesFromStore)
        let objects = try reader.performAndWait {
            let objects = [reader.object(with: a), reader.object(with: b)]
            for object in objects { _ = try object.string("title") }
            return objects
        }
        try writer.performAndWait { () throws in
            try writer.object(with: a).setValue("a2", forKey: "title")
            writer.delete(writer.object(with: b))
            try writer.save()
        }
        let fresh = try waitUntil(reader) { try objects[0].string("title") == "a2" }
        #expect(fresh, "the reader saw the writer's update")
        #expect(reader.performAndWait { reader.registeredObjects.contains { $0 === objects[1] } } == false,
                "the deleted object was dropped")

        // Its own saves are not merged back, and turning it off stops merging.
        reader.performAndWait { reader.automaticallyMergesChangesFromStore = false }
        try writer.performAndWait { () throws in
            try writer.object(with: a).setValue("a3", forKey: "title")
            try writer.save()
        }
        try reader.performAndWait { () throws in #expect(try objects[0].string("title") == "a2") }
        withExtendedLifetime(objects) {}
    }
}
