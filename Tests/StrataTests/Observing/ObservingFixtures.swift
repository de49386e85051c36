import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A store of tasks in groups, and helpers that check a fetched-results controller against
/// a fresh fetch.
enum ObservingFixture {
    static let schema = try! Schema {
        Entity("Task") {
            Attribute("title", .string)
            Attribute("group", .string, optional: true)
            Attribute("rank", .int64, default: 0)
            Attribute("done", .bool, default: false)
        }
    }

    static let groups: [AttributeValue] = [.string("a"), .string("b"), .string("c"), .null]

    /// Options for fast tests: no fsync, no automatic checkpoint.
    static var options: PersistentStore.Options {
        var options = PersistentStore.Options()
        options.storage.durability = .never
        options.automaticCheckpointBytes = nil
        return options
    }

    /// Tasks sorted by group then rank, in sections by group, of the undone ones.
    static var undoneByGroup: FetchRequest {
        FetchRequest(entityName: "Task", predicate: try! ObjectPredicate(format: "done == NO"),
                     sortKeys: [SortKey("group"), SortKey("rank", ascending: false)])
    }

    /// Inserts `count` tasks through `context`, with values from `seed`.
    @discardableResult
    static func insert(_ context: ObjectContext, count: Int, seed: Int) throws -> [ObjectID] {
        try context.performAndWait {
            var ids: [ObjectID] = []
            for i in 0..<count {
                let task = try context.insert("Task")
                try task.setValues(["title": .string("t\(seed)-\(i)"), "group": groups[(seed + i) % groups.count],
                                    "rank": .int(Int64((seed * 7 + i * 3) % 11)), "done": .bool((seed + 2 * i) % 5 == 0)])
                ids.append(task.objectID)
            }
            try context.save()
            return ids
        }
    }

    /// The IDs and section names a fresh fetch of `request` gives (saved state only).
    static func fresh(_ request: FetchRequest, in context: ObjectContext, sectionKey: String?) throws -> (ids: [ObjectID], sections: [String: Int], names: [String]) {
        var saved = request
        saved.includesPendingChanges = false
        return try context.performAndWait {
            let ids = try context.fetchObjectIDs(saved)
            guard let sectionKey else { return (ids, ["": ids.count], [""]) }
            var names: [String] = []
            var counts: [String: Int] = [:]
            for id in ids {
                let value = try context.existingObject(with: id).value(forKey: sectionKey)
                let name = FetchedResultsController<ManagedObject>.sectionName(value)
                if names.last != name { names.append(name) }
                counts[name, default: 0] += 1
            }
            return (ids, counts, names)
        }
    }
}
