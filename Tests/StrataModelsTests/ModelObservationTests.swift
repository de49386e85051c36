import Foundation
import StrataModels
import Testing

/// How observers register with a context's models (`ModelObservation`), and the typed
/// face's lifetime: a model that goes leaves its object ready for a new one.
@Suite struct ModelObservationTests {
    /// Two saved items, fetched in `context` as models.
    private func twoItems(_ typed: TypedStore, _ context: ObjectContext) throws -> [TodoItem] {
        try context.performAndWait {
            context.insert(TodoItem(name: "a"))
            context.insert(TodoItem(name: "b"))
            try context.save()
            return try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.name)]))
        }
    }

    @Test func eachModelObserversHearOnlyOfTheirModel() throws {
        let typed = try TypedStore()
        let context = typed.context()
        context.modelObservation = .eachModel
        let items = try twoItems(typed, context)
        try context.performAndWait {
            let changes = Counter()
            withObservationTracking { _ = items[0].name } onChange: { changes.count += 1 }
            items[1].name = "other"
            #expect(changes.count == 0, "a change to another model reached an observer of the first")
            items[0].name = "mine"
            #expect(changes.count == 1)
            try context.save()
        }
    }

    @Test func sharedByContextObserversHearOfTheContextsModelsAndMissNothing() throws {
        let typed = try TypedStore()
        let context = typed.context()
        #expect(context.modelObservation == .sharedByContext)  // a private-queue context's default
        let items = try twoItems(typed, context)
        context.performAndWait {
            let changes = Counter()
            withObservationTracking { _ = items[0].name } onChange: { changes.count += 1 }
            items[1].name = "other"
            #expect(changes.count == 1)  // coarser: the same property of another model
            withObservationTracking { _ = items[0].name } onChange: { changes.count += 1 }
            items[0].name = "mine"
            #expect(changes.count == 2)
            withObservationTracking { _ = items[0].name } onChange: { changes.count += 1 }
            items[1].done = true
            #expect(changes.count == 2, "a change to a property nobody read reached the observer")
        }
    }

    @Test func theMainContextObservesEachModel() async throws {
        let typed = try TypedStore()
        let mode = await MainActor.run { typed.store.mainContext.modelObservation }
        #expect(mode == .eachModel)
    }

    @Test func aModelNotInsertedYetKeepsItsOwnRegistrarInASharedContext() throws {
        let typed = try TypedStore()
        let context = typed.context()
        context.performAndWait {
            let first = TodoItem(name: "a")
            let second = TodoItem(name: "b")
            let changes = Counter()
            withObservationTracking { _ = first.name } onChange: { changes.count += 1 }
            context.insert(first)
            context.insert(second)
            second.name = "other"
            #expect(changes.count == 0)
            first.name = "mine"
            #expect(changes.count == 1)
        }
    }

    /// The object's reference to its model is not counted; the model's generated `deinit`
    /// clears it. Without that, asking again for the model of an object whose model is gone
    /// would read a released instance.
    @Test func anObjectWhoseModelWentGetsANewOne() throws {
        let typed = try TypedStore()
        let context = typed.context()
        try context.performAndWait {
            context.insert(TodoItem(name: "a"))
            try context.save()
            var objects: [ManagedObject] = []
            for round in 0..<50 {
                // Models made and dropped in each round; their objects are kept.
                do {
                    let models = try context.fetch(FetchDescriptor<TodoItem>())
                    objects = models.compactMap(\.managedObject)
                    #expect(models.count == 1 && models[0].name == (round == 0 ? "a" : "a\(round - 1)"))
                    models[0].name = "a\(round)"
                }
                // Allocations that may reuse the released model's memory.
                let filler = (0..<64).map { TodoItem(name: "filler \($0)") }
                #expect(filler.count == 64)
                let again = try context.model(for: objects[0], as: TodoItem.self)
                #expect(again.name == "a\(round)")
            }
        }
    }
}
