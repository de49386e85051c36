import Foundation
import StrataModels
import Testing

@ModelActor actor Importer {
    func add(_ names: [String]) throws -> [ObjectID] {
        let items = names.map { TodoItem(name: $0) }
        for item in items { modelContext.insert(item) }
        try modelContext.save()
        return items.compactMap(\.persistentModelID)
    }

    func names(_ ids: [ObjectID]) throws -> [String] {
        try ids.compactMap { try modelContext.existingModel(for: $0, as: TodoItem.self)?.name }
    }
}

@Suite struct TypedConcurrencyTests {
    @Test func aModelActorWorksOnItsOwnContextAndHandsOutIDs() async throws {
        let typed = try TypedStore()
        let importer = Importer(store: typed.store)
        let ids = try await importer.add(["a", "b", "c"])
        #expect(ids.count == 3)
        #expect(try await importer.names(ids) == ["a", "b", "c"])
        let other = typed.context()
        let names = try other.performAndWait { try ids.map { try other.existingModel(for: $0, as: TodoItem.self)?.name } }
        #expect(names == ["a", "b", "c"])
    }

    @MainActor @Test func theMainContextIsOneContextOnTheMainActor() async throws {
        let typed = try TypedStore()
        let context = typed.store.mainContext
        #expect(context === typed.store.mainContext)
        #expect(context.concurrencyType == .mainQueue)
        let ids = try await Importer(store: typed.store).add(["x"])
        let item = try #require(try context.existingModel(for: ids[0], as: TodoItem.self))
        #expect(item.name == "x")
        item.done = true
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.done })) == 1)
    }
}
