import Foundation
import StrataModels
import StrataTestSupport
import Testing

@Suite struct TypedSmokeTests {
    @Test func insertFetchCount() throws {
        let directory = try TemporaryDirectory()
        let store = try PersistentStore.open(at: directory.path + "/todo.strata", schema: Schema(TodoList.self, TodoItem.self))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let home = TodoList(title: "Home")
            context.insert(home)
            let milk = TodoItem(name: "Buy milk"); milk.list = home
            context.insert(milk)
            try context.save()
            let open = try context.fetch(FetchDescriptor<TodoItem>(
                predicate: #Predicate { !$0.done && $0.name.contains("milk") },
                sortBy: [SortDescriptor(\.createdAt, order: .reverse)]))
            let doneCount = try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.done }))
            #expect(open.first?.name == "Buy milk")
            #expect(doneCount == 0)
            #expect(home.items.count == 1)
        }
    }
}
