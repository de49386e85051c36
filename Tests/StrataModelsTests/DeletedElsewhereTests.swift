import Foundation
import Testing
import StrataModels
import StrataTestSupport

/// The typed face of a deleted-state object: a model whose row another transaction deleted
/// reads `isDeleted == true` in a merging context, its getters keep its last values, and
/// `loadValues()` throws `.objectNotFound`.
@Suite struct TypedDeletedElsewhereTests {
    @Test func aBatchDeleteMakesLoadedModelsDeleted() throws {
        let store = try TypedStore()
        let writer = store.context()
        try writer.performAndWait {
            for name in ["a", "b", "c"] { writer.insert(TodoItem(name: name)) }
            try writer.save()
        }
        let view = store.context()
        let items = try view.performAndWait { () throws -> [TodoItem] in
            view.automaticallyMergesChangesFromStore = true
            return try view.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.name)]))
        }
        view.performAndWait { #expect(items.map(\.name) == ["a", "b", "c"] && !items[0].isDeleted) }
        _ = try store.store.execute(try BatchDeleteRequest(for: TodoItem.self, where: #Predicate { $0.name == "a" }))
        let clock = ContinuousClock(), deadline = clock.now + .seconds(10)
        while !view.performAndWait({ items[0].isDeleted }) && clock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        try view.performAndWait {
            #expect(items[0].isDeleted, "the merged delete shows on the model")
            #expect(!items[0].hasChanges && !view.hasChanges)
            let error = #expect(throws: StrataError.self) { try items[0].loadValues() }
            #expect(error?.code == .objectNotFound)
            #expect(items[0].name == "a", "its getters keep the values it had")
            #expect(!items[1].isDeleted && items[1].name == "b", "the others are untouched")
            try view.save()
        }
    }
}
