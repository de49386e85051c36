import Foundation
import Strata

/// Issue 8, item 5: fetch every to-do item sorted by `createdAt` as faults, then read one
/// attribute (`name`) of each, against GRDB fetching the same records.
/// Target: ≤ 0.5× (issue 4).
enum SortedFetch {
    static let workload = Workload(
        name: "sorted-fetch", item: 5,
        summary: "fetch all N items sorted by createdAt as faults, read name of each | GRDB records",
        unit: .seconds, target: .ratioAtMost(0.5),
        strata: strata, sqlite: .measured(sqlite),
        best: SQLiteBest(.measured(sqliteBest),
                         how: "\(SQLiteBestFixtures.todoCreatedAtIndex); \(bestSQL), stepped into an array of (id, name)"))

    /// Copies and opens the to-do store (not timed), then times making a private-queue
    /// context and, on its queue, a fetch of every `TodoItem` sorted by `createdAt` as faults
    /// (the default: no batch size, so every object is made at once, as GRDB makes every
    /// record) plus reading `name` from each, which fires its fault. Returns seconds.
    ///
    /// The fetched objects and the context are released inside the timed part, as the GRDB
    /// side's records are. Afterwards (not timed) it checks the order against the dataset
    /// and the total length of the names read (the primary keys it checks are collected in
    /// the timed loop, a cost the GRDB side, which checks only the names, does not pay).
    static func strata(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        let ((ids, characters), seconds) = try Stopwatch.time {
            let context = ObjectContext(store: store)
            return try context.performAndWait {
                let items = try context.fetch(FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")]))
                var characters = 0
                var keys: [Int64] = []
                keys.reserveCapacity(items.count)
                for item in items {
                    characters &+= try item.string("name")?.utf8.count ?? 0
                    keys.append(item.objectID.primaryKey)
                }
                return (keys, characters)
            }
        }
        precondition(ids == run.dataset.todoIDsByCreationDate,
                     "Strata's items are not all there in createdAt order")
        let expected = run.dataset.todoNameBytes
        precondition(characters == expected, "read \(characters) bytes of names, expected \(expected)")
        try store.close()
        return seconds
    }
}
