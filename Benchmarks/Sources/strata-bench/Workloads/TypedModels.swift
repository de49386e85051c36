import Foundation
import StrataBenchModels
import StrataModels

/// Issue 17: the typed API on the same work as the untyped workloads `insert`,
/// `sorted-fetch` and `predicate-count`, in the same run. The SQLite side is those
/// workloads' (GRDB records), so the table shows typed Strata against GRDB; the typed ÷
/// untyped ratios (target ≤ 1.2×) are computed from the two Strata columns of one run.
enum TypedModels {
    static let insert = Workload(
        name: "typed-insert", group: "typed", item: 1,
        summary: "insert N @Model to-do items through one context + save | GRDB records in one transaction",
        unit: .seconds, target: .ratioAtMost(1.0),
        strata: strataInsert, sqlite: .sameAs("insert"))

    static let sortedFetch = Workload(
        name: "typed-sorted-fetch", group: "typed", item: 5,
        summary: "FetchDescriptor sorted by createdAt, read name of each model | GRDB records",
        unit: .seconds, target: .ratioAtMost(1.0),
        strata: strataSortedFetch, sqlite: .sameAs("sorted-fetch"))

    static let predicateCount = Workload(
        name: "typed-predicate-count", group: "typed", item: 4,
        summary: "fetchCount with #Predicate { $0.age >= 100 && $0.age <= 200 } | SELECT COUNT(*) … (no index)",
        unit: .seconds, target: .ratioAtMost(1.0),
        strata: strataPredicateCount, sqlite: .sameAs("predicate-count"))

    /// As `ContextInsert.strata`, with `@Model` objects.
    static func strataInsert(_ run: RunContext) async throws -> Double {
        let directory = run.directory.appendingPathComponent("strata").path
        let store = try PersistentStore.open(at: directory, schema: StrataFixtures.todoSchema, options: StrataFixtures.options)
        let items = run.dataset.todoItems
        let seconds = try Stopwatch.seconds {
            let context = ObjectContext(store: store)
            try context.performAndWait {
                for item in items {
                    context.insert(StrataBenchModels.TodoItem(name: item.name, createdAt: item.createdAt, done: item.done))
                }
                try context.save()
            }
        }
        let count = StrataFixtures.todoCount(store)
        precondition(count == run.scale, "expected \(run.scale) items, found \(count)")
        try store.close()
        return seconds
    }

    /// As `SortedFetch.strata`, through a `FetchDescriptor` and the models' `name`.
    static func strataSortedFetch(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        let ((ids, characters), seconds) = try Stopwatch.time {
            let context = ObjectContext(store: store)
            return try context.performAndWait {
                let items = try context.fetch(FetchDescriptor<StrataBenchModels.TodoItem>(sortBy: [SortDescriptor(\.createdAt)]))
                var characters = 0
                var keys: [Int64] = []
                keys.reserveCapacity(items.count)
                for item in items {
                    characters &+= item.name.utf8.count
                    keys.append(item.persistentModelID?.primaryKey ?? -1)
                }
                return (keys, characters)
            }
        }
        precondition(ids == run.dataset.todoIDsByCreationDate, "the typed fetch's items are not all there in createdAt order")
        precondition(characters == run.dataset.todoNameBytes, "read \(characters) bytes of names, expected \(run.dataset.todoNameBytes)")
        try store.close()
        return seconds
    }

    /// As `PredicateFetch.strataCount`, with a `#Predicate`.
    static func strataPredicateCount(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openPersonStore(for: run)
        let context = ObjectContext(store: store)
        let (count, seconds) = try Stopwatch.time {
            try context.performAndWait {
                try context.fetchCount(FetchDescriptor<StrataBenchModels.Person>(predicate: #Predicate { $0.age >= 100 && $0.age <= 200 }))
            }
        }
        let expected = run.dataset.idsOfPeopleAgedHundredToTwoHundred.count
        precondition(count == expected, "counted \(count) people aged 100 to 200, expected \(expected)")
        try store.close()
        return seconds
    }
}
