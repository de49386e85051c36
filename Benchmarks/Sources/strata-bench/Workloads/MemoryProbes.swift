import Foundation
import GRDB
import Strata

/// Issue 21: resident memory after a full fetch, and the peak during a sorted asynchronous
/// fetch of every to-do item's ID, each side in a fresh child process (`rss-probe`) so one
/// side's memory never counts against the other. Target: none of its own (issue 21 sets
/// one only after open: `resident-memory`); read the ratio.
enum MemoryProbes {
    static let afterFullFetch = Workload(
        name: "memory-full-fetch", group: "memory", item: 10,
        summary: "VmRSS of a new process after open + fetching every item (objects, name read) | GRDB records",
        unit: .bytes, target: .ratioAtMost(1.5), runs: 1,
        strata: { try await probe($0, .strata, .fullFetch) },
        sqlite: .measured { try await probe($0, .sqlite, .fullFetch) },
        best: SQLiteBest(.sameAsRecords, how: "every GRDB record kept in an array (the records side's figure)"),
        perObject: false)

    static let asyncSortedPeak = Workload(
        name: "memory-async-sorted-peak", group: "memory", item: 10,
        summary: "VmHWM of a new process over open + an async fetch of every item's ID sorted by createdAt | GRDB async read",
        unit: .bytes, target: .ratioAtMost(1.5), runs: 1,
        strata: { try await probe($0, .strata, .asyncSorted, peak: true) },
        sqlite: .measured { try await probe($0, .sqlite, .asyncSorted, peak: true) },
        best: SQLiteBest(.sameAsRecords, how: "SELECT id FROM todo ORDER BY createdAt, no index (the records side's figure)"),
        perObject: false)

    /// Copies the engine's to-do fixture (not timed) and runs the probe on it.
    private static func probe(_ run: RunContext, _ engine: RSSProbe.Engine, _ phase: RSSProbe.Phase,
                              peak: Bool = false) async throws -> Double {
        let path: String
        switch engine {
        case .strata: path = try await StrataFixtures.todoStore(for: run).path
        case .sqlite: path = try await SQLiteFixtures.todoDatabase(for: run)
        }
        return try ResidentMemory.probe(engine: engine, path: path, phase: phase, peak: peak)
    }

    /// Runs in the child process after ``ResidentMemory/strataOpenAndCount(directory:keepAlive:)``:
    /// the phase's fetch on the store kept in `keepAlive`, whose results join it.
    static func strataFetch(_ phase: RSSProbe.Phase, keepAlive: inout [AnyObject]) async throws -> Int {
        guard let store = keepAlive.first as? PersistentStore else { return 0 }
        let context = ObjectContext(store: store)
        keepAlive.append(context)
        switch phase {
        case .open:
            return 0
        case .fullFetch:
            let items = try context.performAndWait {
                let items = try context.fetch(FetchRequest(entityName: "TodoItem"))
                for item in items { _ = try item.string("name") }
                return items
            }
            keepAlive.append(Box(items))
            return items.count
        case .asyncSorted:
            let ids = try await context.fetchObjectIDs(AsyncFetchResponsiveness.sortedByCreation()) { _ in }
            keepAlive.append(Box(ids))
            return ids.count
        }
    }

    /// Runs in the child process after ``ResidentMemory/sqliteOpenAndCount(path:keepAlive:)``:
    /// the phase's fetch on the connection kept in `keepAlive`, whose results join it.
    static func sqliteFetch(_ phase: RSSProbe.Phase, keepAlive: inout [AnyObject]) async throws -> Int {
        guard let queue = keepAlive.first as? DatabaseQueue else { return 0 }
        switch phase {
        case .open:
            return 0
        case .fullFetch:
            let items = try await queue.read { db in try TodoItem.fetchAll(db) }
            keepAlive.append(Box(items))
            return items.count
        case .asyncSorted:
            let ids = try await queue.read { db in
                try Int64.fetchAll(db, sql: "SELECT id FROM todo ORDER BY createdAt")
            }
            keepAlive.append(Box(ids))
            return ids.count
        }
    }
}

/// A value kept alive as an object, for the probe's `keepAlive` list.
final class Box<Value> {
    var value: Value

    init(_ value: Value) {
        self.value = value
    }
}
