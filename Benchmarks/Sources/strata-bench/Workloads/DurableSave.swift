import Foundation
import Strata

/// Issue 8, item 8: one-object durable saves (`.always`), against one-row SQLite transactions
/// in WAL mode with `synchronous = FULL`.
///
/// - Single writer: the median latency of one save. Target: ≤ 2× one fdatasync (issue 2).
/// - Eight concurrent writers: saves per second. Target: ≥ 10,000/s (issue 2).
///
/// Each run stops after ``maximumSaves`` saves or ``timeBudget`` seconds, whichever comes
/// first, so a slow disk cannot stretch the benchmark.
enum DurableSave {
    static let latency = Workload(
        name: "durable-save-p50", group: "durable-save", item: 8,
        summary: "one-object .always save, single writer, p50 | one-row txn, WAL, synchronous=FULL",
        unit: .seconds, target: .fdatasyncMultipleAtMost(2),
        strata: strataLatency, sqlite: .measured(sqliteLatency),
        best: SQLiteBest(.sameAsRecords, how: "a one-row GRDB record insert; not measured separately: the fdatasync dominates"),
        perObject: false)

    static let concurrent = Workload(
        name: "durable-save-8-writers", group: "durable-save", item: 8,
        summary: "one-object saves from 8 concurrent writers | the same on a DatabasePool, 8 threads",
        unit: .perSecond, target: .atLeast(10_000),
        strata: strataConcurrent, sqlite: .measured(sqliteConcurrent),
        best: SQLiteBest(.sameAsRecords, how: "the same on a DatabasePool; not measured separately: the fdatasync dominates"))

    /// The most saves one run makes (over all writers).
    static let maximumSaves = 5_000
    /// The longest one run goes on, in seconds.
    static let timeBudget = 4.0
    /// Concurrent writers in ``concurrent``.
    static let writers = 8

    /// The item saved by the `index`-th save: the dataset's items reused, with fresh ids.
    static func item(_ index: Int, of run: RunContext) -> TodoItem {
        var item = run.dataset.todoItems[index % run.dataset.todoItems.count]
        item.id = Int64(index + 1)
        return item
    }

    /// Opens a new store in `run.directory` with `.always` durability (the default), then
    /// saves one new `TodoItem` (``item(_:of:)``) per `save()` from one context, timing each
    /// `performAndWait { insert; save }` (as the SQLite side times each `write { }`), up to
    /// ``maximumSaves`` or ``timeBudget``. Returns the median latency in seconds.
    static func strataLatency(_ run: RunContext) async throws -> Double {
        let store = try openNewStore(run)
        let context = ObjectContext(store: store)
        var latencies: [Double] = []
        let start = Stopwatch.now
        while latencies.count < maximumSaves, Stopwatch.seconds(since: start) < timeBudget {
            let row = item(latencies.count, of: run)
            latencies.append(try Stopwatch.seconds {
                try context.performAndWait {
                    try StrataFixtures.insert(row, into: context)
                    try context.save()
                }
            })
        }
        try store.close()
        return Statistics.percentile(50, of: latencies)!
    }

    /// The same with ``writers`` threads, each saving through a context of its own on the
    /// one store, until ``maximumSaves`` saves in all or ``timeBudget``. Returns saves per
    /// second (saves ÷ wall-clock seconds).
    static func strataConcurrent(_ run: RunContext) async throws -> Double {
        let store = try openNewStore(run)
        let contexts = (0..<writers).map { ObjectContext(store: store, name: "writer-\($0)") }
        let tickets = TicketCounter()
        let start = Stopwatch.now
        let committed = try onThreads(writers) { writer in
            let context = contexts[writer]
            var mine = 0
            while Stopwatch.seconds(since: start) < timeBudget {
                let index = tickets.take()
                guard index < maximumSaves else { break }
                let row = item(index, of: run)
                try context.performAndWait {
                    try StrataFixtures.insert(row, into: context)
                    try context.save()
                }
                mine += 1
            }
            return mine
        }
        let seconds = Stopwatch.seconds(since: start)
        let saves = committed.reduce(0, +)
        let count = StrataFixtures.todoCount(store)
        precondition(count == saves, "expected \(saves) items, found \(count)")
        try store.close()
        return Double(saves) / seconds
    }

    /// A new, empty to-do store in the run's directory, with the default `.always` durability.
    private static func openNewStore(_ run: RunContext) throws -> PersistentStore {
        var options = StrataFixtures.options
        options.storage.durability = .always
        return try PersistentStore.open(
            at: run.directory.appendingPathComponent("strata").path,
            schema: StrataFixtures.todoSchema, options: options)
    }
}
