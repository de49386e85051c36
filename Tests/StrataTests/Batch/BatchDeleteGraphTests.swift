import Testing
import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Batch delete keeps the graph consistent: to-one references to deleted rows are
/// nullified, cascades reach several levels, a deny rule refuses the whole request, and
/// contexts holding deleted objects learn of it through the merge paths.
@Suite struct BatchDeleteGraphTests {
    /// The IDs of the graph ``makeGraph(_:)`` builds.
    struct Graph {
        var folders: [ObjectID] = [], lists: [ObjectID] = [], items: [ObjectID] = []
        var notes: [ObjectID] = [], badges: [ObjectID] = [], person: ObjectID? = nil, lock: ObjectID? = nil
    }

    /// Folder 0 holds lists 0 and 1; list 0 has items 0–2, list 1 has item 3. Item 0 has
    /// notes 0 and 1, item 1 has badge 0. Folder 1 holds list 2, owned by the person.
    /// Folder 2 holds list 3 with item 4, which has the lock. Badge 1 and note 2 are loose.
    static func makeGraph(_ dir: TemporaryDirectory) throws -> (PersistentStore, Graph) {
        let store = try PersistentStore.open(at: dir.path, schema: BatchFixture.graphSchema, options: BatchFixture.options())
        let context = ObjectContext(store: store)
        let graph = try context.performAndWait {
            func make(_ entity: String, _ values: [String: AttributeValue]) throws -> ManagedObject {
                let object = try context.insert(entity)
                try object.setValues(values)
                return object
            }
            let folders = try (0..<3).map { try make("Folder", ["name": .string("F\($0)")]) }
            let lists = try (0..<4).map { try make("TodoList", ["title": .string("L\($0)")]) }
            for (list, folder) in zip(lists, [0, 0, 1, 2]) { try list.setObject(folders[folder], forKey: "folder") }
            let items = try (0..<5).map { try make("TodoItem", ["name": .string("I\($0)")]) }
            for (item, list) in zip(items, [0, 0, 0, 1, 3]) { try item.setObject(lists[list], forKey: "list") }
            let notes = try (0..<3).map { try make("Note", ["text": .string("N\($0)")]) }
            try notes[0].setObject(items[0], forKey: "item")
            try notes[1].setObject(items[0], forKey: "item")
            let badges = try (0..<2).map { try make("Badge", ["label": .string("B\($0)")]) }
            try items[1].setObject(badges[0], forKey: "badge")
            let person = try make("Person", ["name": "P"])
            try lists[2].setObject(person, forKey: "owner")
            let lock = try make("Lock", ["reason": "keep"])
            try items[4].setObject(lock, forKey: "lock")
            try context.save()
            return Graph(folders: folders.map(\.objectID), lists: lists.map(\.objectID), items: items.map(\.objectID),
                         notes: notes.map(\.objectID), badges: badges.map(\.objectID), person: person.objectID, lock: lock.objectID)
        }
        return (store, graph)
    }

    /// Every to-one key in the store that names a row that does not exist, as
    /// "Entity#key.property → target".
    static func danglingReferences(_ store: PersistentStore) -> [String] {
        let rows = BatchFixture.dump(store)
        var dangling: [String] = []
        for layout in store.layouts {
            for property in layout.properties {
                guard let destination = property.destination else { continue }
                let targets = rows[store.layouts[destination].entity.name] ?? [:]
                for (key, values) in rows[layout.entity.name] ?? [:] {
                    if case .int(let target) = values[property.name], targets[target] == nil {
                        dangling.append("\(layout.entity.name)#\(key).\(property.name) → \(target)")
                    }
                }
            }
        }
        return dangling
    }

    /// The `key` value of row `id` in the store, or `nil` when the row is gone.
    static func stored(_ store: PersistentStore, _ id: ObjectID, _ key: String) -> AttributeValue? {
        BatchFixture.dump(store)[id.entityName]?[id.primaryKey]?[key]
    }

    @Test func deletingItemsNullifiesToOneReferencesToThem() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, g) = try Self.makeGraph(dir)
        #expect(Self.stored(store, g.badges[0], "item") == .int(g.items[1].primaryKey))
        var delete = BatchDeleteRequest(objectIDs: [g.items[0], g.items[1]])
        delete.resultType = .objectIDs
        let result = try store.execute(delete)
        #expect(result.objectIDs == [g.items[0], g.items[1]])
        #expect(Self.stored(store, g.items[0], "name") == nil)
        #expect(Self.stored(store, g.notes[0], "item") == .null)
        #expect(Self.stored(store, g.notes[1], "item") == .null)
        #expect(Self.stored(store, g.badges[0], "item") == .null)
        #expect(Self.stored(store, g.lists[0], "title") == "L0")
        #expect(Self.danglingReferences(store).isEmpty)
        #expect(store.rowCounts == ["Folder": 3, "TodoList": 4, "TodoItem": 3, "Note": 3, "Badge": 2, "Person": 1, "Lock": 1])
    }

    @Test func deletingAFolderCascadesThroughListsToItems() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, g) = try Self.makeGraph(dir)
        var delete = BatchDeleteRequest(entityName: "Folder", predicate: try ObjectPredicate(format: "name == 'F0'"))
        delete.resultType = .objectIDs
        let result = try store.execute(delete)
        let expected = Set([g.folders[0], g.lists[0], g.lists[1], g.items[0], g.items[1], g.items[2], g.items[3]])
        #expect(Set(result.objectIDs ?? []) == expected)
        #expect(store.rowCounts == ["Folder": 2, "TodoList": 2, "TodoItem": 1, "Note": 3, "Badge": 2, "Person": 1, "Lock": 1])
        #expect(Self.stored(store, g.notes[0], "item") == .null)
        #expect(Self.stored(store, g.badges[0], "item") == .null)
        #expect(Self.danglingReferences(store).isEmpty)
        // The same after replay.
        let state = BatchFixture.dump(store)
        try store.close()
        let reopened = try PersistentStore.open(at: dir.path, schema: BatchFixture.graphSchema, options: BatchFixture.options())
        #expect(BatchFixture.dump(reopened) == state)
    }

    @Test func denyRulesRefuseTheWholeRequest() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, g) = try Self.makeGraph(dir)
        let lsn = store.lastLSN, before = BatchFixture.dump(store)
        // Person.lists is deny and the person owns list 2.
        #expect { try store.execute(BatchDeleteRequest(entityName: "Person")) } throws: { error in
            let error = error as? StrataError
            return error?.code == .deleteDenied && error?.message.contains("Person.lists") == true
        }
        // Folder 2 cascades to list 3 and item 4, whose lock is deny: nothing at all goes.
        #expect { try store.execute(BatchDeleteRequest(objectIDs: [g.folders[1], g.folders[2]])) } throws: { error in
            let error = error as? StrataError
            return error?.code == .deleteDenied && error?.message.contains("TodoItem.lock") == true
        }
        #expect(store.lastLSN == lsn)
        #expect(BatchFixture.dump(store) == before)
        try store.close()
        let reopened = try PersistentStore.open(at: dir.path, schema: BatchFixture.graphSchema, options: BatchFixture.options())
        #expect(reopened.lastLSN == lsn)
        #expect(BatchFixture.dump(reopened) == before)
        // Remove the lock (nullifying item 4's key) and the cascade goes through.
        _ = try reopened.execute(BatchDeleteRequest(objectIDs: [g.lock!]))
        #expect(Self.stored(reopened, g.items[4], "lock") == .null)
        var delete = BatchDeleteRequest(objectIDs: [g.folders[2]])
        delete.resultType = .count
        #expect(try reopened.execute(delete).count == 3)
        #expect(Self.danglingReferences(reopened).isEmpty)
    }

    @Test func contextsLearnOfDeletionsByMergeAndAutomatically() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (store, g) = try Self.makeGraph(dir)
        let changes = Locked<[StoreChange]>([])
        let token = store.observeChanges { change in changes.withLock { $0.append(change) } }
        defer { token.cancel() }
        let manual = ObjectContext(store: store, name: "manual")
        let automatic = ObjectContext(store: store, name: "automatic")
        automatic.performAndWait { automatic.automaticallyMergesChangesFromStore = true }
        /// Loads list 0, its items and note 0 in `context`, and edits item 0 without saving.
        func load(_ context: ObjectContext) throws -> [ManagedObject] {
            try context.performAndWait {
                let objects = try [g.lists[0], g.items[0], g.items[2], g.notes[0]].map { try context.existingObject(with: $0) }
                try objects[1].setValue("edited", forKey: "name")
                return objects
            }
        }
        let held = (manual: try load(manual), automatic: try load(automatic))

        _ = try store.execute(BatchDeleteRequest(objectIDs: [g.lists[0]]))
        let change = try #require(changes.withLock { $0.last })
        #expect(change.kind == .batchDelete)
        #expect(change.deleted == Set([g.lists[0], g.items[0], g.items[1], g.items[2]]))
        #expect(change.updated == Set([g.notes[0], g.notes[1], g.badges[0]]))

        manual.performAndWait { manual.mergeChanges(from: change) }
        for (context, objects) in [(manual, held.manual), (automatic, held.automatic)] {
            // performAndWait runs after the automatic merge scheduled by the commit.
            try context.performAndWait {
                let name = context.name ?? ""
                #expect(!context.registeredObjects.contains { $0.objectID == g.items[0] }, "\(name)")
                #expect(!context.hasChanges, "\(name): the edit of a deleted object is dropped")
                #expect(throws: StrataError.self, "\(name)") { try objects[2].string("name") }
                #expect(throws: StrataError.self, "\(name)") { try context.existingObject(with: g.items[2]) }
                #expect(try objects[3].object(forKey: "item") == nil, "\(name): note 0's item is nullified")
                #expect(try context.fetch(FetchRequest(entityName: "TodoItem")).count == 2, "\(name)")
                try context.save()
            }
        }
    }
}
