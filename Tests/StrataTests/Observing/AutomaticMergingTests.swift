import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// `automaticallyMergesChangesFromStore` after each kind of change: another context's save,
/// a batch update, a batch delete, a batch insert; and a controller on a merging context.
@Suite struct AutomaticMergingTests {
    /// A merging context with every task of the store loaded (held by the returned array).
    static func mergingContext(_ fixture: StoreFixture, ids: [ObjectID]) throws -> (ObjectContext, [ManagedObject]) {
        let context = fixture.context("merging")
        let objects = try context.performAndWait {
            context.automaticallyMergesChangesFromStore = true
            return try ids.map { try context.existingObject(with: $0) }
        }
        return (context, objects)
    }

    @Test func anotherContextsSaveIsMerged() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 3, seed: 0)
        let (context, objects) = try Self.mergingContext(fixture, ids: ids)
        try context.performAndWait { try objects[0].setValue("mine", forKey: "group") }
        try writer.performAndWait {
            try writer.object(with: ids[0]).setValue(42, forKey: "rank")
            writer.delete(writer.object(with: ids[1]))
            try writer.save()
        }
        #expect(try waitUntil(context) { try objects[0].int("rank") == 42 }, "the loaded object was reloaded")
        try context.performAndWait {
            #expect(try objects[0].string("group") == "mine", "its unsaved change stays on top")
            #expect(throws: StrataError.self) { try context.existingObject(with: ids[1]) }
            #expect(!context.registeredObjects.contains { $0 === objects[1] }, "the deleted object was dropped")
            let gone = #expect(throws: StrataError.self) { try objects[1].string("title") }
            #expect(gone?.code == .objectNotFound)
            #expect(gone?.message.contains("deleted in the store") == true, "it says why")
            try context.save()   // merged, so no conflict
        }
    }

    @Test func aBatchUpdateIsMergedWithoutLoadingOtherRows() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 50, seed: 1)
        let (context, objects) = try Self.mergingContext(fixture, ids: Array(ids.prefix(2)))
        _ = try fixture.store.execute(BatchUpdateRequest(entityName: "Task", propertiesToUpdate: ["rank": .constant(7)]))
        #expect(try waitUntil(context) { try objects.allSatisfy { try $0.int("rank") == 7 } })
        #expect(context.performAndWait { context.registeredObjects.count } == 2, "no object was made for the rows not loaded")
    }

    @Test func aBatchDeleteIsMerged() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 4, seed: 2)
        let (context, objects) = try Self.mergingContext(fixture, ids: ids)
        _ = try fixture.store.execute(BatchDeleteRequest(objectIDs: [ids[2]]))
        #expect(waitUntil(context) { !context.registeredObjects.contains { $0 === objects[2] } })
        try context.performAndWait { () throws in
            #expect(throws: StrataError.self) { try context.existingObject(with: ids[2]) }
            #expect(try objects[3].string("title") != nil, "the others are untouched")
        }
    }

    @Test func aBatchInsertShowsInAControllerOnAMergingContext() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 3, seed: 3)
        let (context, objects) = try Self.mergingContext(fixture, ids: ids)
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task", sortKeys: [SortKey("title")]), context: context)
        let titles = Collected<[String]>()
        try context.performAndWait {
            try controller.performFetch()
            // The observer reads the objects' values: they must be the new ones already.
            controller.didChange = { _ in titles.append((try? controller.fetchedObjects.map { try $0.string("title") ?? "" }) ?? []) }
        }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Task", objects: [["title": "t0-new"]]))
        try writer.performAndWait {
            try writer.object(with: ids[0]).setValue("t9-renamed", forKey: "title")
            try writer.save()
        }
        // One change or two: commits that arrive before the controller's update coalesce.
        #expect(waitUntil(context) { titles.values.last?.count == 4 && titles.values.last?.contains("t9-renamed") == true })
        let final = try ObservingFixture.fresh(controller.fetchRequest, in: context, sectionKey: nil).ids
        #expect(context.performAndWait { controller.fetchedObjectIDs } == final)
        #expect(titles.values.last?.last == "t9-renamed", "the observer saw the merged value, in its place")
        #expect(titles.values.last?.contains("t0-new") == true)
        withExtendedLifetime(objects) {}
    }

    @Test func aControllerReportsOnlyOnceItsObjectsAreMerged() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 3, seed: 4)
        let (context, objects) = try Self.mergingContext(fixture, ids: ids)
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task"), context: context)
        let seen = Collected<String>()
        try context.performAndWait {
            try controller.performFetch()
            controller.didChange = { _ in seen.append((try? objects[1].string("title")) ?? "unreadable") }
            // The writer saves while this queue is busy, so the automatic merge of its save
            // waits behind this block: the controller must not report stale objects.
            try writer.performAndWait {
                try writer.object(with: ids[1]).setValue("fresh", forKey: "title")
                try writer.save()
            }
            try controller.processPendingChanges()
        }
        #expect(seen.values == ["fresh"])
    }
}
