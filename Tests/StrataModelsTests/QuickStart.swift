import Foundation
import StrataModels

/// The statements of the README's quick start, verbatim (``QuickStartTests`` checks that
/// the README's block is `TodoModels.swift` followed by this function's body).
func quickStart() async throws {
    let store = try PersistentStore.open(at: "todo.strata", schema: Schema(TodoList.self, TodoItem.self))
    let context = ObjectContext(store: store)
    try context.performAndWait {
        let home = TodoList(title: "Home")
        context.insert(home)
        let milk = TodoItem(name: "Buy milk"); milk.list = home
        context.insert(milk)
        for name in ["Water the plants", "Pay rent"] { context.insert(TodoItem(name: name)) }
        try context.save()                                   // durable when it returns

        let open = try context.fetch(FetchDescriptor<TodoItem>(
            predicate: #Predicate { !$0.done && $0.name.contains("milk") },
            sortBy: [SortDescriptor(\.createdAt, order: .reverse)]))
        let doneCount = try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.done }))
        print(open.first?.name ?? "", doneCount, home.items.count)   // Buy milk 0 1
    }
    // Asynchronous fetch with progress; cancelling the task cancels the scan.
    let ids = try await context.fetchObjectIDs(FetchRequest(entityName: "TodoItem")) { print("Fetched \($0.found) records") }
    // "Check all": a batch update straight to the store, one compact log record.
    var checkAll = BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)])
    checkAll.resultType = .objectIDs
    let updated = try store.execute(checkAll).objectIDSet ?? []   // key ranges: free for a million rows
    ObjectContext.mergeChanges(updated: updated, into: [context])   // held objects show done == YES
    print(ids.count, updated.count)                          // 3 3 (on the first run)
    try store.close()
}
