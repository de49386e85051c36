import Foundation
import Strata

/// Issue 16: the README's "check all" recipe at full scale — a batch update of every undone
/// item returning its IDs, then `ObjectContext.mergeChanges` into a context that holds every
/// item. The IDs come back as an `ObjectIDSet` (key ranges), so neither step makes a million
/// `ObjectID`s or a `Set`.
enum CheckAll {
    static let ids = StorageBenchmark(
        name: "check-all-ids",
        summary: "batch update done = true where done == NO, resultType .objectIDs, and the result's ID set",
        unit: .seconds, target: .atMost(0.100), limit: nil, measure: measureIDs)

    static let merge = StorageBenchmark(
        name: "check-all-merge",
        summary: "ObjectContext.mergeChanges(updated: result.objectIDSet) into a context holding all N items",
        unit: .seconds, target: .atMost(0.250), limit: nil, measure: measureMerge)

    /// Every undone item set done, asking for the IDs.
    static var request: BatchUpdateRequest {
        var request = BatchUpdateRequest(entityName: "TodoItem", predicate: try! ObjectPredicate(format: "done == NO"),
                                         propertiesToUpdate: ["done": .constant(true)])
        request.resultType = .objectIDs
        return request
    }

    /// Times the batch update and reading its set's count (what the recipe hands on).
    static func measureIDs(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        defer { try? store.close() }
        let (updated, seconds) = try Stopwatch.time { () throws -> Int in
            let result = try store.execute(request)
            return result.objectIDSet?.count ?? -1
        }
        precondition(updated > 0, "the batch update reported no IDs")
        return seconds
    }

    /// Fetches every item into a context and keeps the results (not timed), runs the batch
    /// update (not timed), then times the merge; checks afterwards that a held item shows it.
    static func measureMerge(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        let items = try context.performAndWait { try context.fetch(FetchRequest(entityName: "TodoItem")) }
        precondition(items.count == run.scale, "fetched \(items.count) items, expected \(run.scale)")
        let result = try store.execute(request)
        let updated = result.objectIDSet ?? []
        let seconds = Stopwatch.seconds { ObjectContext.mergeChanges(updated: updated, into: [context]) }
        let allDone = try context.performAndWait {
            try items.indices.lazy.filter { $0 % 997 == 0 }.allSatisfy { try items[$0].bool("done") == true }
        }
        precondition(allDone, "a held item does not show the merged update")
        return seconds
    }
}
