import Foundation
import Testing
import StrataModels

/// Typed live queries and controllers on the main context: a list that follows "check all".
@Suite struct LiveQueryTests {
    /// Runs `body`, or gives `nil` if it has not finished after `timeout` (a failsafe against
    /// a hang; the waits inside end as soon as their change arrives).
    static func withFailsafe<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { try await Task.sleep(for: timeout); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func aLiveListFollowsCheckAll() async throws {
        let typed = try TypedStore()
        let store = typed.store
        let seen = try await Self.withFailsafe(.seconds(120)) { @MainActor () async throws -> [[String]] in
            let context = store.mainContext
            for (i, name) in ["a", "b", "c"].enumerated() {
                context.insert(TodoItem(name: name, createdAt: Date(timeIntervalSince1970: Double(i))))
            }
            try context.save()
            let undone = FetchDescriptor<TodoItem>(predicate: #Predicate { !$0.done }, sortBy: [SortDescriptor(\.createdAt)])
            var lists: [[String]] = []
            for try await items in context.observe(undone) {
                lists.append(items.map(\.name))
                switch lists.count {
                case 1:
                    // An update of a result is reported (its values changed), and lists it again.
                    let b = FetchDescriptor<TodoItem>(predicate: #Predicate { $0.name == "b" })
                    try context.fetch(b)[0].notes = "milk"
                    try context.save()
                case 2:
                    // "Check all" as a batch update, outside any context.
                    _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)]))
                default:
                    return lists
                }
            }
            return lists
        }
        #expect(seen == [["a", "b", "c"], ["a", "b", "c"], []])
    }

    @Test func onlyChangesThatAffectTheResultsAreReported() async throws {
        let typed = try TypedStore()
        let store = typed.store
        let seen = try await Self.withFailsafe(.seconds(120)) { @MainActor () async throws -> [[String]] in
            let context = store.mainContext
            let done = TodoItem(name: "old", createdAt: Date(timeIntervalSince1970: 0))
            done.done = true
            context.insert(done)
            context.insert(TodoItem(name: "open", createdAt: Date(timeIntervalSince1970: 1)))
            try context.save()
            let undone = FetchDescriptor<TodoItem>(predicate: #Predicate { !$0.done }, sortBy: [SortDescriptor(\.createdAt)])
            var lists: [[String]] = []
            for try await items in context.observe(undone) {
                lists.append(items.map(\.name))
                if lists.count == 1 {
                    done.notes = "a row outside the results"
                    try context.save()
                    context.insert(TodoItem(name: "new", createdAt: Date(timeIntervalSince1970: 2)))
                    try context.save()
                } else {
                    return lists
                }
            }
            return lists
        }
        #expect(seen == [["open"], ["open", "new"]])
    }

    @Test func aTypedControllerHasSections() async throws {
        let typed = try TypedStore()
        let store = typed.store
        let sections = try await Self.withFailsafe(.seconds(120)) { @MainActor () throws -> [String] in
            let context = store.mainContext
            for (i, name) in ["a", "b", "c"].enumerated() {
                let item = TodoItem(name: name, createdAt: Date(timeIntervalSince1970: Double(i)))
                item.notes = i == 1 ? "later" : "now"
                context.insert(item)
            }
            try context.save()
            let controller = try FetchedResultsController(
                descriptor: FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.notes), SortDescriptor(\.createdAt)]),
                context: context, sectionKey: \TodoItem.notes)
            try controller.performFetch()
            #expect(controller.fetchedObjects.map(\.name) == ["b", "a", "c"])
            #expect(controller.object(at: 2) === controller.fetchedObjects[2], "one model per object")
            return controller.sections.map { "\($0.name):\($0.numberOfObjects)" }
        }
        #expect(sections == ["later:1", "now:2"])
    }

    @Test func aPrivateContextCannotObserveModels() async throws {
        let typed = try TypedStore()
        let store = typed.store
        let code = try await Self.withFailsafe(.seconds(120)) { @MainActor () async -> StrataError.Code? in
            let context = ObjectContext(store: store)
            do {
                for try await _ in context.observe(FetchDescriptor<TodoItem>()) {}
                return nil
            } catch {
                return (error as? StrataError)?.code
            }
        }
        #expect(code == .misuse)
    }
}
