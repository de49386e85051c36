import Testing
import Foundation
import StrataTestSupport
@testable import Strata

@Suite struct ContextSmokeTests {
    static let schema = try! Schema {
        Entity("TodoList") {
            Attribute("title", .string)
            Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
        }
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("done", .bool, default: false)
            Relationship("list", to: "TodoList", inverse: "items")
        }
    }

    @Test func insertSaveReopen() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var listID: ObjectID?
        do {
            let store = try PersistentStore.open(at: dir.path, schema: Self.schema)
            let context = ObjectContext(store: store)
            try context.performAndWait {
                let list = try context.insert("TodoList")
                try list.setValue("Groceries", forKey: "title")
                for name in ["milk", "eggs", "bread"] {
                    let item = try context.insert("TodoItem")
                    try item.setValue(.string(name), forKey: "name")
                    try list.add(item, toKey: "items")
                }
                try context.save()
                listID = list.objectID
                #expect(try list.objects(forKey: "items").count == 3)
            }
            try store.checkpoint()
            try context.performAndWait {
                let item = try context.insert("TodoItem")
                try item.setValue("jam", forKey: "name")
                try item.setObject(context.object(with: listID!), forKey: "list")
                try context.save()
            }
            try store.close()
        }
        let store = try PersistentStore.open(at: dir.path, schema: Self.schema)
        #expect(store.rowCounts == ["TodoList": 1, "TodoItem": 4])
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let list = context.object(with: listID!)
            #expect(list.isFault)
            #expect(try list.string("title") == "Groceries")
            let names = try list.objects(forKey: "items").map { try $0.string("name") ?? "" }
            #expect(names == ["milk", "eggs", "bread", "jam"])
            context.delete(list)
            try context.save()
        }
        #expect(store.rowCounts == ["TodoList": 0, "TodoItem": 0])
    }
}
