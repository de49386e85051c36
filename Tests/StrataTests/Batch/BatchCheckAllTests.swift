import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// The seed tutorial's "check all": a batch update marks every item done without loading
/// it; contexts holding the items learn of it by refresh or by automatic merge.
///
/// Knob: `STRATA_CHECK_ALL_ITEMS` (default 3,000 items).
@Suite struct BatchCheckAllTests {
    /// A store with one list of `count` items, none done; returns the store and item IDs.
    static func makeList(_ dir: TemporaryDirectory, count: Int) throws -> (PersistentStore, [ObjectID]) {
        let store = try PersistentStore.open(at: dir.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
        let list = try BatchFixture.insert(store, "TodoList", [["title": "Groceries"]])[0]
        let ids = try BatchFixture.insert(store, "TodoItem", (0..<count).map { i in
            ["name": .string("item \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(i))),
             "list": .int(list.primaryKey), "done": .bool(i % 3 == 0)]
        })
        return (store, ids)
    }

    /// A batch update of every undone item, asking for the updated IDs.
    static var checkAll: BatchUpdateRequest {
        var request = BatchUpdateRequest(entityName: "TodoItem", predicate: try! ObjectPredicate(format: "done == NO"),
                                         propertiesToUpdate: ["done": .constant(true)])
        request.resultType = .objectIDs
        return request
    }

    @Test func checkAllThenRefreshEachObject() throws {
        let count = testKnob("STRATA_CHECK_ALL_ITEMS", default: 3_000)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, ids) = try Self.makeList(dir, count: count)
        let context = ObjectContext(store: store, name: "ui")
        // Load every item (not faults) and keep them, so stale values would show.
        let loaded = try context.performAndWait {
            let objects = try ids.map { try context.existingObject(with: $0) }
            #expect(try objects.filter { try $0.bool("done") == true }.count == (count + 2) / 3)
            return objects
        }
        #expect(loaded.count == count)

        let lsnBefore = store.lastLSN
        let result = try store.execute(Self.checkAll)
        let updated = try #require(result.objectIDs)
        #expect(Set(updated) == Set(ids.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)))
        #expect(result.lsn == lsnBefore + 1)

        try context.performAndWait {
            // Not told unless asked: the loaded objects still show the old values.
            #expect(try context.existingObject(with: updated[0]).bool("done") == false)
            for id in updated { context.refresh(context.object(with: id), mergeChanges: false) }
            #expect(try ids.allSatisfy { try context.existingObject(with: $0).bool("done") == true })
            let refetched = try context.fetch(FetchRequest(entityName: "TodoItem"))
            #expect(refetched.count == count)
            #expect(try refetched.allSatisfy { try $0.bool("done") == true })
            #expect(try context.count(for: FetchRequest(entityName: "TodoItem", predicate: ObjectPredicate(format: "done == NO"))) == 0)
            // The refreshed objects save cleanly on top of the batch (no stale version).
            try context.existingObject(with: ids[1]).setValue("renamed", forKey: "name")
            try context.save()
        }
        #expect(try BatchFixture.values(store, [ids[1]], key: "done") == [.bool(true)])
        withExtendedLifetime(loaded) {}
    }

    @Test func checkAllWithAutomaticMerge() throws {
        let count = testKnob("STRATA_CHECK_ALL_ITEMS", default: 3_000)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, ids) = try Self.makeList(dir, count: count)
        let context = ObjectContext(store: store, name: "ui")
        let kept = try context.performAndWait {
            context.automaticallyMergesChangesFromStore = true
            return try ids.map { try context.existingObject(with: $0) }
        }
        // An unsaved change on one item survives the merge.
        try context.performAndWait { try kept[1].setValue("edited", forKey: "name") }

        let result = try store.execute(Self.checkAll)
        #expect(result.objectIDs?.count == count - (count + 2) / 3)
        // The merge is scheduled on the context's (serial) queue by the commit, before
        // execute returns; performAndWait runs after it.
        try context.performAndWait {
            #expect(try kept.allSatisfy { try $0.bool("done") == true })
            #expect(try kept[1].string("name") == "edited")
            #expect(kept[1].hasChanges)
            #expect(try context.fetch(FetchRequest(entityName: "TodoItem")).allSatisfy { try $0.bool("done") == true })
            try context.save()
        }
        #expect(try BatchFixture.values(store, [ids[1]], key: "name") == ["edited"])
        #expect(try BatchFixture.values(store, [ids[1]], key: "done") == [.bool(true)])
    }

    @Test func mergeChangesByIDsReachesEveryContext() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, ids) = try Self.makeList(dir, count: 50)
        let contexts = (0..<3).map { ObjectContext(store: store, name: "c\($0)") }
        let held = try contexts.map { context in try context.performAndWait { try ids.map { try context.existingObject(with: $0) } } }
        let result = try store.execute(Self.checkAll)
        ObjectContext.mergeChanges(updated: Set(result.objectIDs ?? []), into: contexts)
        for (context, objects) in zip(contexts, held) {
            try context.performAndWait {
                let allDone = try objects.allSatisfy { try $0.bool("done") == true }
                #expect(allDone, "context \(context.name ?? "")")
            }
        }
    }
}
