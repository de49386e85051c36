import Foundation
import GRDB
import Strata

/// Issue 19: one object saved → the observer of an N-row fetch sorted by `createdAt` is
/// notified. Strata: a `FetchedResultsController` over every item, updated from the commit's
/// changed rows. SQLite: GRDB's `ValueObservation` tracking the same sorted fetch (of the
/// IDs), which refetches the whole request after each write. Both measure from the save's
/// (the write's) return to the observer's notification, so the log's or WAL's sync is not in
/// the figure; p50 and p99 over 200 saves (Strata) and 20 writes (GRDB, one refetch each).
enum ObserveSave {
    static let p50 = Workload(
        name: "observe-save-p50", group: "observe", item: 19,
        summary: "one-object save -> FetchedResultsController over N items sorted by createdAt notified, p50 | write -> ValueObservation of the same sorted fetch notified, p50",
        unit: .seconds, target: .atMost(0.001), runs: 1, oneRunForSQLite: true,
        strata: { try await strata($0, percentile: 0.5) }, sqlite: .measured { try await sqlite($0, percentile: 0.5) },
        perObject: false)

    static let p99 = Workload(
        name: "observe-save-p99", group: "observe", item: 19,
        summary: "the same, p99",
        unit: .seconds, target: .atMost(0.001), runs: 1, oneRunForSQLite: true,
        strata: { try await strata($0, percentile: 0.99) }, sqlite: .measured { try await sqlite($0, percentile: 0.99) },
        perObject: false)

    /// When the observer was last notified (set on the observer's queue, read after the
    /// semaphore by the measuring thread).
    final class Arrival: @unchecked Sendable {
        // @unchecked Sendable: `instant` is only touched under `lock`.
        private let lock = NSLock()
        private var instant = ContinuousClock.now
        func record() { lock.withLock { instant = ContinuousClock.now } }
        var last: ContinuousClock.Instant { lock.withLock { instant } }
    }

    static func percentile(_ values: [Duration], _ p: Double) -> Double {
        let sorted = values.sorted()
        let d = sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func strata(_ run: RunContext, percentile p: Double) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        defer { try? store.close() }
        return try measure(store, percentile: p)
    }

    /// The saves and waits (blocking, so not in an async function).
    static func measure(_ store: PersistentStore, percentile p: Double, saves: Int = 200) throws -> Double {
        let view = ObjectContext(store: store, name: "view")
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")]),
                                                      context: view)
        try view.performAndWait { try controller.performFetch() }
        let arrival = Arrival()
        let signal = DispatchSemaphore(value: 0)
        view.performAndWait {
            controller.didChange = { _ in
                arrival.record()
                signal.signal()
            }
        }
        let writer = ObjectContext(store: store, name: "writer")
        var latencies: [Duration] = []
        for i in 0..<saves {
            try writer.performAndWait {
                let item = try writer.insert("TodoItem")
                try item.setValues(["name": .string("new \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(i * 7_919 % 1_000_000))),
                                    "done": false])
                try writer.save()
            }
            let returned = ContinuousClock.now
            signal.wait()
            latencies.append(max(.zero, arrival.last - returned))
        }
        return percentile(latencies, p)
    }

    static func sqlite(_ run: RunContext, percentile p: Double) async throws -> Double {
        try measure(sqlite: try await SQLiteFixtures.todoDatabase(for: run), percentile: p)
    }

    /// The writes and waits (blocking, so not in an async function).
    static func measure(sqlite path: String, percentile p: Double, writes: Int = 20) throws -> Double {
        let pool = try SQLiteDatabase.openPool(at: path)
        let arrival = Arrival()
        let signal = DispatchSemaphore(value: 0)
        let observation = ValueObservation.trackingConstantRegion { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM \(TodoItem.databaseTableName) ORDER BY createdAt")
        }
        let cancellable = observation.start(in: pool, scheduling: .async(onQueue: DispatchQueue(label: "observer")),
                                            onError: { error in fatalError("ValueObservation failed: \(error)") },
                                            onChange: { _ in
                                                arrival.record()
                                                signal.signal()
                                            })
        signal.wait()   // the initial value
        var latencies: [Duration] = []
        for i in 0..<writes {
            try pool.write { db in
                try db.execute(sql: "INSERT INTO \(TodoItem.databaseTableName) (name, createdAt, done) VALUES (?, ?, 0)",
                               arguments: ["new \(i)", Double(i * 7_919 % 1_000_000)])
            }
            let returned = ContinuousClock.now
            signal.wait()
            latencies.append(max(.zero, arrival.last - returned))
        }
        cancellable.cancel()
        return percentile(latencies, p)
    }
}
