import Testing
import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Batch results keep their IDs as key ranges (`ObjectIDSet`), and `mergeChanges` takes them
/// as they are: the README's "check all" recipe with no `Set` in between.
@Suite struct ObjectIDSetTests {
    @Test func aBatchResultsSetIsItsKeyRanges() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, ids) = try BatchCheckAllTests.makeList(dir, count: 3_000)
        let result = try store.execute(BatchCheckAllTests.checkAll)
        let set = try #require(result.objectIDSet)
        let expected = ids.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)
        // Every third key is missing: one run per two keys, and no Set made.
        #expect(set.keyRanges?.ranges.first?.keys.runs.count == 1_000)
        #expect(set.count == expected.count)
        #expect(Array(set) == expected, "iterated by ascending key")
        #expect(result.objectIDs == expected)
        #expect(expected.allSatisfy(set.contains))
        #expect(!set.contains(ids[0]) && !set.contains(ids[3]))
        #expect(!set.contains(ObjectID(storeID: UUID(), entityName: "TodoItem", primaryKey: ids[1].primaryKey)), "another store's ID")
        #expect(!set.contains(ObjectID(storeID: store.storeID, entityName: "TodoList", primaryKey: ids[1].primaryKey)), "another entity's ID")
        #expect(set == ObjectIDSet(expected) && ObjectIDSet(expected) == set)
        #expect(set != ObjectIDSet(expected.dropLast()))
        #expect(set.hashValue == ObjectIDSet(expected).hashValue)
    }

    @Test func emptyAndLiteralSets() {
        let id = ObjectID(storeID: UUID(), entityName: "A", primaryKey: 1)
        let empty = ObjectIDSet()
        #expect(empty.isEmpty && empty.count == 0 && Array(empty).isEmpty)
        let one: ObjectIDSet = [id, id]
        #expect(one.count == 1 && one.contains(id) && Array(one) == [id])
        #expect(ObjectIDSet(storeID: id.storeID, ranges: [("A", KeyRanges(sortedKeys: [1, 2, 5])), ("B", KeyRanges(first: 7, count: 2))]).map(\.primaryKey) == [1, 2, 5, 7, 8])
    }

    /// Registered objects that are fewer than the IDs (the registry is looked up in the
    /// ranges) and more (the keys are looked up in the registry) both merge.
    @Test(arguments: [10, 3_000])
    func mergeChangesTakesTheSetAsItIs(held: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, ids) = try BatchCheckAllTests.makeList(dir, count: 3_000)
        let context = ObjectContext(store: store, name: "ui")
        let objects = try context.performAndWait { try ids.prefix(held).map { try context.existingObject(with: $0) } }
        let result = try store.execute(BatchCheckAllTests.checkAll)
        ObjectContext.mergeChanges(updated: result.objectIDSet ?? [], into: [context])
        let done = try context.performAndWait { try objects.allSatisfy { try $0.bool("done") == true } }
        #expect(done)
        var delete = BatchDeleteRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "name ENDSWITH '1'"))
        delete.resultType = .objectIDs
        let deleted = try #require(try store.execute(delete).objectIDSet)
        #expect(deleted.count == 300)
        ObjectContext.mergeChanges(deleted: deleted, into: [context])
        context.performAndWait {
            for (index, object) in objects.enumerated() {
                #expect((context.registered(object.objectID) == nil) == (index % 10 == 1), "item \(index)")
            }
        }
    }

    @Test func theSetTakingMergeStillWorks() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, ids) = try BatchCheckAllTests.makeList(dir, count: 30)
        let context = ObjectContext(store: store, name: "ui")
        let objects = try context.performAndWait { try ids.map { try context.existingObject(with: $0) } }
        let result = try store.execute(BatchCheckAllTests.checkAll)
        let updated: Set<ObjectID> = Set(try #require(result.objectIDs))
        ObjectContext.mergeChanges(updated: updated, into: [context])
        let done = try context.performAndWait { try objects.allSatisfy { try $0.bool("done") == true } }
        #expect(done)
    }

    @Test func aGeneratedBatchInsertFillsEachRowOnceWhenItRuns() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PersistentStore.open(at: dir.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
        let calls = Locked(0)
        var insert = BatchInsertRequest(entityName: "TodoItem", count: 2_000) { index, row in
            calls.withLock { $0 += 1 }
            #expect(row.isEmpty, "each row starts empty")
            row["name"] = .string("item \(index)")
            row["createdAt"] = .date(Date(timeIntervalSince1970: Double(index)))
        }
        insert.resultType = .objectIDs
        #expect(calls.withLock { $0 } == 0, "nothing is built up front")
        #expect(insert.count == 2_000)
        let result = try store.execute(insert)
        #expect(calls.withLock { $0 } == 2_000)
        #expect(result.objectIDSet?.count == 2_000)
        let context = ObjectContext(store: store)
        let names = try context.performAndWait { try context.fetch(FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])).map { try $0.string("name") } }
        #expect(names == (0..<2_000).map { "item \($0)" })
    }
}
