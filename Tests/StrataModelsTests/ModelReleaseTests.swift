import Foundation
import Observation
import StrataModels
import Testing

@ModelActor actor ReleasingReader {
    /// Fetches every item, lets the models go on the actor (the context's queue), and says
    /// whether their objects went with them.
    func objectsGoWithTheirModels() throws -> Bool {
        weak var object: ManagedObject?
        do {
            let items = try modelContext.fetch(FetchDescriptor<TodoItem>())
            object = items.first?.managedObject
            guard object != nil else { return false }
        }
        return object == nil
    }
}

/// A model's `deinit` lets its `ManagedObject` go with it (`ModelBacking.modelDidDeinit`):
/// on the context's queue, a stored object without unsaved changes that nothing else holds
/// is freed when its model is, and nothing else changes — no change is lost, and a model
/// released off the queue or after its context leaves the registry alone.
@Suite struct ModelReleaseTests {
    /// A store with the items `names`, saved by a context that is gone by the time this returns.
    private func store(_ names: String...) throws -> TypedStore {
        let typed = try TypedStore()
        let writer = typed.context()
        try writer.performAndWait {
            for name in names { writer.insert(TodoItem(name: name)) }
            try writer.save()
        }
        return typed
    }

    /// The names of the stored items, read by a new context.
    private func storedNames(_ typed: TypedStore) throws -> [String] {
        let reader = typed.context()
        return try reader.performAndWait { try reader.fetch(FetchDescriptor<TodoItem>()).map(\.name) }
    }

    @Test func aFetchedModelsObjectIsFreedWithTheModel() throws {
        let typed = try store("a", "b")
        let context = typed.context()
        try context.performAndWait {
            weak var first: ManagedObject?
            weak var second: ManagedObject?
            do {
                let items = try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.name)]))
                #expect(items.map(\.name) == ["a", "b"])
                first = items[0].managedObject
                second = items[1].managedObject
                #expect(first != nil && second != nil)
            }
            #expect(first == nil, "the object went with its model, not with the context")
            #expect(second == nil)
            #expect(context.registeredObjects.isEmpty)
        }
    }

    @Test func aChangedModelsObjectOutlivesItUntilSaveAndTheChangeIsSaved() throws {
        let typed = try store("a")
        let context = typed.context()
        try context.performAndWait {
            weak var object: ManagedObject?
            do {
                let item = try #require(try context.fetch(FetchDescriptor<TodoItem>()).first)
                item.name = "changed"
                object = item.managedObject
            }
            #expect(object != nil, "its unsaved change holds it")
            #expect(context.hasChanges && context.updatedObjects.count == 1)
            try context.save()
            #expect(object == nil, "saved, nothing holds it")
        }
        let names = try storedNames(typed)
        #expect(names == ["changed"])
    }

    @Test func insertedAndDeletedModelsObjectsStayUntilSave() throws {
        let typed = try store("old")
        let context = typed.context()
        try context.performAndWait {
            weak var inserted: ManagedObject?
            weak var deleted: ManagedObject?
            do {
                let new = TodoItem(name: "new")
                context.insert(new)
                inserted = new.managedObject
                let old = try #require(try context.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.name == "old" })).first)
                context.delete(old)
                deleted = old.managedObject
            }
            #expect(inserted != nil && deleted != nil, "held by the context's changes")
            #expect(context.insertedObjects.count == 1 && context.deletedObjects.count == 1)
            try context.save()
        }
        let names = try storedNames(typed)
        #expect(names == ["new"])
    }

    @Test func anObjectUntypedCodeHoldsStaysWithItsValues() throws {
        let typed = try store("a")
        let context = typed.context()
        try context.performAndWait {
            var object: ManagedObject?
            do {
                let item = try #require(try context.fetch(FetchDescriptor<TodoItem>()).first)
                #expect(item.name == "a")
                object = item.managedObject
            }
            let kept = try #require(object)
            #expect(!kept.isFault && context.registeredObjects.count == 1)
            #expect(try kept.string("name") == "a")
            let again = try #require(try context.fetch(FetchDescriptor<TodoItem>()).first)
            #expect(again.managedObject === kept, "one object per ID while it is held")
            #expect(again.name == "a")
        }
    }

    @Test func aRefetchAfterTheReleaseGivesAFreshModelWithTheStoredValues() throws {
        let typed = try store("a")
        let context = typed.context()
        try context.performAndWait {
            weak var object: ManagedObject?
            do {
                let item = try #require(try context.fetch(FetchDescriptor<TodoItem>()).first)
                #expect(item.name == "a")
                object = item.managedObject
            }
            #expect(object == nil)
        }
        // Another context changes the row; this one merges nothing.
        let writer = typed.context()
        try writer.performAndWait {
            let item = try #require(try writer.fetch(FetchDescriptor<TodoItem>()).first)
            item.name = "b"
            item.done = true
            try writer.save()
        }
        try context.performAndWait {
            let item = try #require(try context.fetch(FetchDescriptor<TodoItem>()).first)
            #expect(item.name == "b" && item.done, "a new object read the stored row")
            #expect(!item.hasChanges)
        }
    }

    @Test func aModelReleasedOffTheQueueLeavesTheRegistryAlone() throws {
        let typed = try store("a")
        let context = typed.context()
        weak var object: ManagedObject?
        do {
            let items = try context.performAndWait { try context.fetch(FetchDescriptor<TodoItem>()) }
            object = context.performAndWait { items[0].managedObject }
        }
        // Released here, off the queue: the registry still holds the object, which counts as gone.
        #expect(object != nil, "the registry was not touched off its queue")
        try context.performAndWait {
            #expect(context.registeredObjects.isEmpty)
            let item = try #require(try context.fetch(FetchDescriptor<TodoItem>()).first)
            #expect(item.name == "a")
        }
    }

    @Test func aModelThatOutlivesItsContextIsReleasedSafely() throws {
        let typed = try store("a")
        var items: [TodoItem] = []
        weak var gone: ObjectContext?
        do {
            let context = typed.context()
            gone = context
            items = try context.performAndWait { try context.fetch(FetchDescriptor<TodoItem>()) }
        }
        #expect(gone == nil && items.count == 1)
        items = []
    }

    @Test func aModelActorsModelsLetTheirObjectsGo() async throws {
        let typed = try store("a", "b")
        #expect(try await ReleasingReader(store: typed.store).objectsGoWithTheirModels())
    }

    @MainActor @Test func theMainContextsModelsLetTheirObjectsGo() throws {
        let typed = try store("a")
        let context = ObjectContext(store: typed.store, concurrencyType: .mainQueue)
        weak var object: ManagedObject?
        do {
            let items = try context.fetch(FetchDescriptor<TodoItem>())
            object = items[0].managedObject
            #expect(object != nil)
        }
        #expect(object == nil)
    }

    /// Models released beside an observed one: its observer still hears of a refresh that
    /// brings another context's save, and the released ones' objects are gone.
    @Test func anObservedModelStillHearsOfChangesWhenOthersGo() throws {
        let typed = try store("a", "b")
        let context = typed.context()
        let changes = Counter()
        let observed = try context.performAndWait { () throws -> TodoItem in
            let items = try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.name)]))
            withObservationTracking { _ = items[0].name } onChange: { changes.count += 1 }
            return items[0]
        }
        let writer = typed.context()
        try writer.performAndWait {
            for item in try writer.fetch(FetchDescriptor<TodoItem>()) { item.name += "!" }
            try writer.save()
        }
        try context.performAndWait {
            #expect(context.registeredObjects.count == 1)
            context.refresh(try #require(observed.managedObject), mergeChanges: true)
            #expect(changes.count == 1)
            #expect(observed.name == "a!")
            let all = try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.name)]))
            #expect(all.map(\.name) == ["a!", "b!"])
            #expect(all[0] === observed)
        }
    }
}
