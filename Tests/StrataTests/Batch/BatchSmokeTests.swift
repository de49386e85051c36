import Testing
import Foundation
import StrataTestSupport
@testable import Strata

@Suite struct BatchSmokeTests {
    static let schema = try! Schema {
        Entity("TodoList") {
            Attribute("title", .string)
            Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
        }
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("done", .bool, default: false)
            Attribute("createdAt", .date)
            Relationship("list", to: "TodoList", inverse: "items")
        }
    }

    @Test func batchInsertUpdateDeleteAndAsyncFetch() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PersistentStore.open(at: dir.path, schema: Self.schema)
        var listInsert = BatchInsertRequest(entityName: "TodoList", objects: [["title": "Home"]])
        listInsert.resultType = .objectIDs
        let list = try store.execute(listInsert).objectIDs![0]
        var insert = BatchInsertRequest(entityName: "TodoItem", count: 5000) { i, row in
            row["name"] = .string("item \(i)")
            row["createdAt"] = .date(Date(timeIntervalSince1970: Double(5000 - i)))
            if i < 10 { row["list"] = .int(list.primaryKey) }
        }
        insert.resultType = .count
        #expect(try store.execute(insert).count == 5000)
        var update = BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)])
        update.resultType = .count
        let updated = try store.execute(update)
        #expect(updated.count == 5000)
        var toggle = BatchUpdateRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "name ENDSWITH '7'"), propertiesToUpdate: ["done": .not("done")])
        toggle.resultType = .count
        #expect(try store.execute(toggle).count == 500)
        var delete = BatchDeleteRequest(objectIDs: [list])
        delete.resultType = .count
        #expect(try store.execute(delete).count == 11)
        #expect(store.rowCounts == ["TodoList": 0, "TodoItem": 4990])
        try store.close()

        let reopened = try PersistentStore.open(at: dir.path, schema: Self.schema)
        #expect(reopened.rowCounts == ["TodoList": 0, "TodoItem": 4990])
        let context = ObjectContext(store: reopened)
        let ids = try await context.fetchObjectIDs(FetchRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "done == NO"), sortKeys: [SortKey("createdAt")]))
        #expect(ids.count == 499)
        let names = try context.performAndWait { try ids.prefix(2).map { try context.object(with: $0).string("name") } }
        #expect(names == ["item 4997", "item 4987"])
    }
}
