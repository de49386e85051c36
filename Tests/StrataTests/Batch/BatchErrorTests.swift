import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// Batch requests skip validation rules but never type checking: every refused request
/// throws a typed error and writes nothing — same LSN, same rows, also after reopening.
@Suite struct BatchErrorTests {
    /// A store with two lists and 2,500 items (several chunks), some at the int16 limit.
    static func makeStore(_ dir: TemporaryDirectory) throws -> PersistentStore {
        let store = try PersistentStore.open(at: dir.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
        let lists = try BatchFixture.insert(store, "TodoList", [["title": "A"], ["title": "B"]])
        try BatchFixture.insert(store, "TodoItem", (0..<2_500).map { i in
            ["name": .string("item \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(i))),
             "priority": .int(i == 2_000 ? Int64(Int16.max) : Int64(i % 11)),
             "count": i % 7 == 0 ? .null : .int(i == 1_500 ? 1 << 40 : Int64(i)),
             "list": .int(lists[i % 2].primaryKey)]
        })
        return store
    }

    /// Runs `body`, expects a `StrataError` with `code` whose message mentions every string
    /// of `mentions`, and checks that the store's LSN and rows are unchanged, then again
    /// after closing and reopening it.
    static func expectRefused(_ code: StrataError.Code, mentioning mentions: [String] = [],
                              sourceLocation: SourceLocation = #_sourceLocation,
                              _ body: (PersistentStore) throws -> Void) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        let lsn = store.lastLSN
        let before = BatchFixture.dump(store)
        do {
            try body(store)
            Issue.record("expected a \(code) error", sourceLocation: sourceLocation)
        } catch let error as StrataError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            for mention in mentions {
                #expect(error.message.contains(mention), "message lacks '\(mention)': \(error.message)", sourceLocation: sourceLocation)
            }
        }
        #expect(store.lastLSN == lsn, sourceLocation: sourceLocation)
        #expect(BatchFixture.dump(store) == before, sourceLocation: sourceLocation)
        try store.close()
        let reopened = try PersistentStore.open(at: dir.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
        #expect(reopened.lastLSN == lsn, sourceLocation: sourceLocation)
        #expect(BatchFixture.dump(reopened) == before, sourceLocation: sourceLocation)
        try reopened.close()
    }

    /// A batch update of every item with `values`.
    static func update(_ values: [String: BatchValue], where format: String? = nil) -> BatchUpdateRequest {
        BatchUpdateRequest(entityName: "TodoItem", predicate: format.map { try! ObjectPredicate(format: $0) }, propertiesToUpdate: values)
    }

    @Test func updateWithWrongTypeIsRefused() throws {
        try Self.expectRefused(.typeMismatch, mentioning: ["TodoItem.done", "string"]) { store in
            _ = try store.execute(Self.update(["done": .constant("yes")]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["createdAt"]) { store in
            _ = try store.execute(Self.update(["name": .constant("x"), "createdAt": .constant(.int(5))]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["name"]) { store in
            _ = try store.execute(Self.update(["name": .not("done")]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["score"]) { store in
            _ = try store.execute(Self.update(["score": .copy("name")]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["count"]) { store in
            _ = try store.execute(Self.update(["count": .add("count", 1.5)]))
        }
    }

    @Test func updateWithUnknownKeyNamesTheNearest() throws {
        try Self.expectRefused(.unknownKey, mentioning: ["'prority'", "did you mean 'priority'"]) { store in
            _ = try store.execute(Self.update(["prority": .constant(1)]))
        }
        try Self.expectRefused(.unknownKey, mentioning: ["'dne'", "did you mean 'done'"]) { store in
            _ = try store.execute(Self.update(["done": .not("dne")]))
        }
        try Self.expectRefused(.unknownEntity, mentioning: ["'TodoItems'", "did you mean 'TodoItem'"]) { store in
            _ = try store.execute(BatchUpdateRequest(entityName: "TodoItems", propertiesToUpdate: ["done": .constant(true)]))
        }
    }

    @Test func updateOfRelationshipKeyIsRefused() throws {
        try Self.expectRefused(.typeMismatch, mentioning: ["TodoItem.list", "relationship"]) { store in
            _ = try store.execute(Self.update(["list": .constant(.int(1))]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["relationship"]) { store in
            _ = try store.execute(Self.update(["list": .constant(.null)]))
        }
    }

    @Test func nilForRequiredIsRefused() throws {
        try Self.expectRefused(.typeMismatch, mentioning: ["TodoItem.name", "required", "nil"]) { store in
            _ = try store.execute(Self.update(["name": .constant(.null)]))
        }
        // A copy from an optional attribute that is nil in some rows.
        try Self.expectRefused(.typeMismatch, mentioning: ["priority", "nil"]) { store in
            _ = try store.execute(Self.update(["priority": .copy("count")], where: "count == nil OR count < 5"))
        }
    }

    @Test func int16OverflowIsRefused() throws {
        // One row at Int16.max among 2,500: the whole request fails.
        try Self.expectRefused(.typeMismatch, mentioning: ["TodoItem.priority", "int16", "out of range"]) { store in
            _ = try store.execute(Self.update(["priority": .add("priority", 1)]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["priority"]) { store in
            _ = try store.execute(Self.update(["priority": .constant(40_000)]))
        }
        // A copy from an int64 attribute holding 2^40 into the int16 one.
        try Self.expectRefused(.typeMismatch, mentioning: ["priority"]) { store in
            _ = try store.execute(Self.update(["priority": .copy("count")], where: "count != nil"))
        }
        // An int64 sum past Int64.max.
        try Self.expectRefused(.typeMismatch, mentioning: ["count"]) { store in
            _ = try store.execute(Self.update(["count": .add("count", .int(.max))], where: "count != nil"))
        }
    }

    @Test func validationRulesAreSkippedButTypesAreNot() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try Self.makeStore(dir)
        // priority has the rule 0...10; 11 is an int16, so the batch writes it.
        var request = Self.update(["priority": .constant(11)], where: "priority == 3")
        request.resultType = .count
        let result = try store.execute(request)
        #expect(result.count == 227)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let stored = try context.count(for: FetchRequest(entityName: "TodoItem", predicate: ObjectPredicate(format: "priority == 11")))
            #expect(stored == 227)
        }
    }

    @Test func insertWithBadRowsIsRefused() throws {
        try Self.expectRefused(.unknownKey, mentioning: ["Row 1", "'nme'", "did you mean 'name'"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", objects: [
                ["name": "ok", "createdAt": .date(Date())], ["nme": "typo", "createdAt": .date(Date())]]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["Row 0", "priority"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", objects: [
                ["name": "x", "createdAt": .date(Date()), "priority": 70_000]]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["createdAt", "required"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", objects: [["name": "no date"]]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["TodoItem.list", "does not exist"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", objects: [
                ["name": "x", "createdAt": .date(Date()), "list": 999]]))
        }
        try Self.expectRefused(.typeMismatch, mentioning: ["list"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", objects: [
                ["name": "x", "createdAt": .date(Date()), "list": "A"]]))
        }
    }

    @Test func deleteByIDsOfAnotherEntityIsMisuse() throws {
        try Self.expectRefused(.misuse) { store in
            let context = ObjectContext(store: store)
            var ids = try context.performAndWait { try context.fetchObjectIDs(FetchRequest(entityName: "TodoItem")) }
            ids.append(ObjectID(storeID: store.storeID, entityName: "TodoList", primaryKey: 1))
            _ = try store.execute(BatchDeleteRequest(objectIDs: ids))
        }
    }

    @Test func emptyRequestsWriteNothingAndSucceed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try Self.makeStore(dir)
        let lsn = store.lastLSN
        var delete = BatchDeleteRequest(objectIDs: [])
        delete.resultType = .count
        #expect(try store.execute(delete) == BatchResult(status: true, objectIDs: nil, count: 0, lsn: 0))
        var update = Self.update(["done": .constant(true)], where: "name == 'nobody'")
        update.resultType = .objectIDs
        #expect(try store.execute(update) == BatchResult(status: true, objectIDs: [], count: nil, lsn: 0))
        var insert = BatchInsertRequest(entityName: "TodoItem", objects: [])
        insert.resultType = .count
        #expect(try store.execute(insert).count == 0)
        #expect(store.lastLSN == lsn)
    }
}
