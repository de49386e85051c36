import Foundation
import StrataTestSupport
@testable import Strata

/// Schemas, stores and state dumps shared by the batch request tests.
enum BatchFixture {
    /// A to-do list with items; `priority` has a validation rule that batch requests skip.
    static let todoSchema = try! Schema {
        Entity("TodoList") {
            Attribute("title", .string)
            Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
        }
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("done", .bool, default: false)
            Attribute("createdAt", .date)
            Attribute("priority", .int16, default: 0).range(0...10)
            Attribute("count", .int64, optional: true)
            Attribute("score", .double, optional: true)
            Attribute("note", .string, optional: true)
            Relationship("list", to: "TodoList", inverse: "items")
        }
    }

    /// A graph for delete rules: folder →cascade→ lists →cascade→ items; items' notes and
    /// badges are nullified; a lock on an item and a person owning lists deny deletion.
    static let graphSchema = try! Schema {
        Entity("Folder") {
            Attribute("name", .string)
            Relationship("lists", to: "TodoList", inverse: "folder", toMany: true, deleteRule: .cascade)
        }
        Entity("Person") {
            Attribute("name", .string)
            Relationship("lists", to: "TodoList", inverse: "owner", toMany: true, deleteRule: .deny)
        }
        Entity("TodoList") {
            Attribute("title", .string)
            Relationship("folder", to: "Folder", inverse: "lists")
            Relationship("owner", to: "Person", inverse: "lists")
            Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
        }
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("done", .bool, default: false)
            Relationship("list", to: "TodoList", inverse: "items")
            Relationship("notes", to: "Note", inverse: "item", toMany: true, deleteRule: .nullify)
            Relationship("badge", to: "Badge", inverse: "item")
            Relationship("lock", to: "Lock", inverse: "item", deleteRule: .deny)
        }
        Entity("Note") {
            Attribute("text", .string)
            Relationship("item", to: "TodoItem", inverse: "notes")
        }
        Entity("Badge") {
            Attribute("label", .string)
            Relationship("item", to: "TodoItem", inverse: "badge")
        }
        Entity("Lock") {
            Attribute("reason", .string)
            Relationship("item", to: "TodoItem", inverse: "lock")
        }
    }

    /// Options with automatic checkpoints off (so the log holds every transaction) and,
    /// when given, a simulated file system.
    static func options(_ fs: SimulatedFileSystem? = nil) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        if let fs { options.storage.fileSystem = fs }
        return options
    }

    /// Every row of every entity: entity name → primary key → property name → value
    /// (attributes and to-one keys; row versions left out, as they record *when*, not *what*).
    static func dump(_ store: PersistentStore) -> [String: [Int64: [String: AttributeValue]]] {
        let version = store.currentVersion
        var result: [String: [Int64: [String: AttributeValue]]] = [:]
        for layout in store.layouts {
            let table = version.tables[layout.index]
            var rows: [Int64: [String: AttributeValue]] = [:]
            for (c, chunk) in table.chunks.enumerated() {
                for (r, key) in chunk.primaryKeys.enumerated() {
                    rows[key] = Dictionary(uniqueKeysWithValues: layout.properties.indices.map {
                        (layout.properties[$0].name, table.value($0, at: (c, r)))
                    })
                }
            }
            result[layout.entity.name] = rows
        }
        return result
    }

    /// Inserts `rows` into `entity` with a batch insert and returns their IDs.
    @discardableResult
    static func insert(_ store: PersistentStore, _ entity: String, _ rows: [[String: AttributeValue]]) throws -> [ObjectID] {
        var request = BatchInsertRequest(entityName: entity, objects: rows)
        request.resultType = .objectIDs
        return try store.execute(request).objectIDs ?? []
    }

    /// The values of `key` for `ids`, read by a fresh fetch in a new context.
    static func values(_ store: PersistentStore, _ ids: [ObjectID], key: String) throws -> [AttributeValue] {
        let context = ObjectContext(store: store)
        return try context.performAndWait { try ids.map { try context.existingObject(with: $0).value(forKey: key) } }
    }

    /// The total size of the store's log segments in `directory`, in bytes.
    static func logBytes(in directory: String) throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        return try names.filter { $0.hasPrefix("wal-") && $0.hasSuffix(".log") }.reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)")
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }
}
