import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// An object whose row another transaction deleted becomes a deleted-state object in a
/// merging context that had it: `isDeleted == true`, no unsaved change, gone from the
/// registry, and every read or write throws `.objectNotFound` saying it was deleted in the
/// store. Rows the context never loaded cost nothing.
@Suite struct DeletedElsewhereTests {
    /// Checks the deleted state of `object` in `context` (on its queue).
    static func expectDeletedInStore(_ object: ManagedObject, in context: ObjectContext) throws {
        try context.performAndWait {
            #expect(object.isDeleted, "it reads as deleted")
            #expect(!object.hasChanges && !object.isInserted && !object.isUpdated, "no unsaved change of this context")
            #expect(!context.hasChanges, "the context has nothing to save for it")
            #expect(!context.registeredObjects.contains { $0 === object }, "it left the registry")
            let read = #expect(throws: StrataError.self) { try object.value(forKey: "title") }
            #expect(read?.code == .objectNotFound)
            #expect(read?.message.contains("deleted in the store") == true)
            let write = #expect(throws: StrataError.self) { try object.setValue("x", forKey: "title") }
            #expect(write?.code == .objectNotFound)
            try context.save()   // nothing to write, no conflict
        }
    }

    @Test func anotherContextsSaveDeletesALoadedObject() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 3, seed: 20)
        let (context, objects) = try AutomaticMergingTests.mergingContext(fixture, ids: ids)
        context.performAndWait { #expect(!objects[1].isDeleted) }
        try writer.performAndWait {
            writer.delete(writer.object(with: ids[1]))
            try writer.save()
        }
        #expect(waitUntil(context) { objects[1].isDeleted })
        try Self.expectDeletedInStore(objects[1], in: context)
        try context.performAndWait { () throws in
            #expect(!objects[0].isDeleted && !objects[2].isDeleted, "the others are untouched")
            #expect(try objects[0].string("title") != nil)
        }
    }

    @Test func aBatchDeleteDeletesLoadedObjectsWithoutTouchingTheRest() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 3000, seed: 21)
        let loadedIDs = [ids[5], ids[1500], ids[2999]]
        let (context, objects) = try AutomaticMergingTests.mergingContext(fixture, ids: loadedIDs)
        let result = try fixture.store.execute(BatchDeleteRequest(entityName: "Task", predicate: try ObjectPredicate(format: "title BEGINSWITH 't21-'")))
        #expect(result.status)
        #expect(waitUntil(context) { objects.allSatisfy(\.isDeleted) })
        for object in objects { try Self.expectDeletedInStore(object, in: context) }
        #expect(context.performAndWait { context.registeredObjects.isEmpty }, "no object was made for the 2,997 rows not loaded")
    }

    @Test func aManualMergeOfASaveWithManyDeletesLooksUpOnlyTheLoadedObjects() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 200, seed: 22)
        let context = fixture.context("view")
        let kept = try context.performAndWait { () throws -> ManagedObject in
            let object = try context.existingObject(with: ids[7])
            _ = try object.string("title")
            return object
        }
        let changes = Collected<StoreChange>()
        let token = fixture.store.observeChanges { changes.append($0) }
        try writer.performAndWait {
            for id in ids { writer.delete(writer.object(with: id)) }
            try writer.save()
        }
        token.cancel()
        let change = try #require(changes.values.last)
        #expect(change.deleted.count == 200)
        context.performAndWait { context.mergeChanges(from: change) }
        try Self.expectDeletedInStore(kept, in: context)
        #expect(context.performAndWait { context.registeredObjects.isEmpty })
    }

    @Test func anObjectDeletedInItsOwnContextIsStillAnUnsavedDelete() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let ids = try ObservingFixture.insert(fixture.context(), count: 1, seed: 23)
        let context = fixture.context("view")
        try context.performAndWait {
            let object = try context.existingObject(with: ids[0])
            context.delete(object)
            #expect(object.isDeleted && object.hasChanges && context.hasChanges)
            try context.save()
            #expect(!context.hasChanges)
        }
    }
}
