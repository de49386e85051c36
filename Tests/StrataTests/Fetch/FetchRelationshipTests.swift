import Foundation
import Testing
@testable import Strata

/// Relationship key paths in fetch predicates, evaluated on store rows (`RowSubject`):
/// to-one `list.title`, to-many `ANY items.done == YES`, `items.@count > 2`, and the same
/// over lists whose items span several 1,024-row chunks.
@Suite struct FetchRelationshipTests {
    /// Lists Groceries (milk ✓, eggs, bread), Work (report ✓), Empty, Chores (dishes,
    /// laundry, floor, windows); one item without a list. Read from a fresh context, so
    /// every match comes from store rows.
    static func withLists(_ body: (ObjectContext, [String: ObjectID]) throws -> Void) throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        var ids: [String: ObjectID] = [:]
        try harness.run { context throws in
            let lists: [(String, [(String, Bool)])] = [
                ("Groceries", [("milk", true), ("eggs", false), ("bread", false)]),
                ("Work", [("report", true)]),
                ("Empty", []),
                ("Chores", [("dishes", false), ("laundry", false), ("floor", false), ("windows", false)]),
            ]
            for (title, items) in lists {
                let list = try context.insert("TodoList")
                try list.setValue(.string(title), forKey: "title")
                ids[title] = list.objectID
                for (name, done) in items {
                    let item = try context.insert("TodoItem")
                    try item.setValues(["name": .string(name), "done": .bool(done)])
                    try list.add(item, toKey: "items")
                    ids[name] = item.objectID
                }
            }
            let orphan = try context.insert("TodoItem")
            try orphan.setValue("orphan", forKey: "name")
            ids["orphan"] = orphan.objectID
            try context.save()
        }
        let reader = harness.newContext("reader")
        try reader.performAndWait { try body(reader, ids) }
    }

    static func titles(_ context: ObjectContext, _ entity: String, _ format: String) throws -> [String] {
        let key = entity == "TodoList" ? "title" : "name"
        return try context.fetch(try FetchRequest(entity, format, sort: [SortKey(key)])).map { try $0.string(key) ?? "?" }
    }

    @Test func toOneKeyPaths() throws {
        try Self.withLists { c, _ throws in
            #expect(try Self.titles(c, "TodoItem", "list.title == 'Groceries'") == ["bread", "eggs", "milk"])
            #expect(try Self.titles(c, "TodoItem", "list.title BEGINSWITH[c] 'w'") == ["report"])
            #expect(try Self.titles(c, "TodoItem", "list == nil") == ["orphan"])
            #expect(try Self.titles(c, "TodoItem", "list != nil AND done == NO AND list.title != 'Chores'") == ["bread", "eggs"])
            #expect(try Self.titles(c, "TodoItem", "list.title != 'Groceries'").count == 6, "orphan's nil title != 'Groceries'")
        }
    }

    @Test func toManyKeyPaths() throws {
        try Self.withLists { c, _ throws in
            #expect(try Self.titles(c, "TodoList", "ANY items.done == YES") == ["Groceries", "Work"])
            #expect(try Self.titles(c, "TodoList", "SOME items.done == YES") == ["Groceries", "Work"])
            #expect(try Self.titles(c, "TodoList", "ALL items.done == YES") == ["Empty", "Work"])
            #expect(try Self.titles(c, "TodoList", "NONE items.done == YES") == ["Chores", "Empty"])
            #expect(try Self.titles(c, "TodoList", "items.@count > 2") == ["Chores", "Groceries"])
            #expect(try Self.titles(c, "TodoList", "items.@count == 0") == ["Empty"])
            #expect(try Self.titles(c, "TodoList", "ANY items.name IN {'floor', 'milk'}") == ["Chores", "Groceries"])
            #expect(try Self.titles(c, "TodoList", "items.@max.name == 'windows'") == ["Chores"])
            #expect(try Self.titles(c, "TodoList", "items.@count > 2 AND ANY items.done == YES") == ["Groceries"])
            #expect(try c.count(for: try FetchRequest("TodoList", "NOT (ANY items.done == YES)")) == 2)
        }
    }

    /// Items spread over several chunks: 2,500 items across three lists.
    @Test func toManyAcrossChunks() throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            let lists = try ["a", "b", "c"].map { title -> ManagedObject in
                let list = try context.insert("TodoList")
                try list.setValue(.string(title), forKey: "title")
                return list
            }
            for i in 0..<2_500 {
                let item = try context.insert("TodoItem")
                try item.setValues(["name": .string("i\(i)"), "done": .bool(i == 2_400)])
                // a: items 0…999, b: 1000…2399 and 2400, c: every tenth from 1000 on is orphaned instead.
                if i < 1_000 { try item.setObject(lists[0], forKey: "list") }
                else if i % 10 != 5 { try item.setObject(lists[1], forKey: "list") }
            }
            _ = lists[2]
            try context.save()
        }
        let reader = harness.newContext()
        try reader.performAndWait { () throws in
            #expect(harness.store.currentVersion.tables[harness.store.layoutIndex["TodoItem"]!].chunks.count >= 3)
            #expect(try Self.titles(reader, "TodoList", "ANY items.done == YES") == ["b"])
            #expect(try Self.titles(reader, "TodoList", "items.@count > 1000") == ["b"])
            #expect(try Self.titles(reader, "TodoList", "items.@count == 1000") == ["a"])
            #expect(try Self.titles(reader, "TodoList", "items.@count == 0") == ["c"])
            #expect(try reader.count(for: try FetchRequest("TodoItem", "list.title == 'b'")) == 1_350)
            #expect(try reader.count(for: try FetchRequest("TodoItem", "list == nil")) == 150)
        }
    }
}
