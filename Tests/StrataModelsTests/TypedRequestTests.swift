import Foundation
import StrataModels
import Testing

@Suite struct TypedRequestTests {
    @Test func aTypedBatchUpdateIsTheUntypedRequest() throws {
        let typed = try BatchUpdateRequest(for: TodoItem.self, set: \.done, to: true, where: #Predicate { !$0.done })
        let untyped = BatchUpdateRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "NOT done == YES"),
                                         propertiesToUpdate: ["done": .constant(true)])
        #expect(typed == untyped)
        let high = try BatchUpdateRequest(for: TodoItem.self, set: \.priority, to: .high)
        #expect(high.propertiesToUpdate == ["priority": .constant("high")])
        #expect(throws: StrataError.self) { try BatchUpdateRequest(for: TodoItem.self, set: \.isSelected, to: true) }
    }

    @Test func checkAllRunsOnTheStore() throws {
        let store = try TypedStore()
        let context = store.context()
        try context.performAndWait {
            for (name, done) in [("a", false), ("b", true), ("c", false)] {
                let item = TodoItem(name: name)
                item.done = done
                context.insert(item)
            }
            try context.save()
            var checkAll = try BatchUpdateRequest(for: TodoItem.self, set: \.done, to: true, where: #Predicate { !$0.done })
            checkAll.resultType = .objectIDs
            let result = try store.store.execute(checkAll)
            #expect(result.objectIDs?.count == 2)
            #expect(try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.done })) == 3)
            _ = try store.store.execute(try BatchDeleteRequest(for: TodoItem.self, where: #Predicate { $0.name == "a" }))
            #expect(try context.fetchCount(FetchDescriptor<TodoItem>()) == 2)
        }
    }

    @MainActor @Test func anAsynchronousTypedFetchReportsProgressAndReturnsModels() async throws {
        let store = try TypedStore()
        let ids = try await Importer(store: store.store).add((0..<3000).map { "item \($0)" })
        #expect(ids.count == 3000)
        let reports = Counter()
        let lock = NSLock()
        let items = try await store.store.mainContext.fetch(
            FetchDescriptor<TodoItem>(predicate: #Predicate { $0.name.starts(with: "item 1") }, sortBy: [SortDescriptor(\.name)])) { _ in
            lock.withLock { reports.count += 1 }
        }
        #expect(items.count == 1111)
        #expect(items.first?.name == "item 1")
        #expect(lock.withLock { reports.count } > 0)
        let background = ObjectContext(store: store.store)
        await #expect(throws: StrataError.self) {
            _ = try await background.fetch(FetchDescriptor<TodoItem>()) { _ in }
        }
    }
}
