import Foundation
import Strata

/// When the observer last heard of a change, set on the controller's queue, read by the
/// measuring thread after the semaphore.
final class Arrival: @unchecked Sendable {
    // @unchecked Sendable: `instant` is only touched under `lock`.
    private let lock = NSLock()
    private var instant: ContinuousClock.Instant?
    private var changes = 0

    func record(_ now: ContinuousClock.Instant) { lock.withLock { instant = now; changes += 1 } }
    var last: ContinuousClock.Instant { lock.withLock { instant! } }
    var count: Int { lock.withLock { changes } }
}

/// `observe N`: a fetched-results controller over all N items sorted by `createdAt`, then
/// `saves` one-object saves from another context (each waits until the controller reported
/// it), then one batch update of every row. Prints the fetch time, the latency from the
/// start of each save to the controller's change (p50, p99; the save itself included) and
/// from the save's return, and the batch update's time to the controller's one change.
/// The log is not synced (`Durability.never`): the figure is the observation, not fsync.
func measureObservation(directory: String, count: Int, saves: Int = 500) throws {
    var options = PersistentStore.Options()
    options.automaticCheckpointBytes = nil
    options.storage.durability = .never
    let store = try PersistentStore.open(at: directory, schema: schema, options: options)
    defer { try? store.close() }
    var insert = BatchInsertRequest(entityName: "TodoItem", count: count) { i, row in
        row["name"] = .string("item \(i)")
        row["createdAt"] = .date(Date(timeIntervalSince1970: Double((i &* 7_919) % count)))
        row["done"] = false
    }
    insert.resultType = .statusOnly
    _ = try store.execute(insert)

    let clock = ContinuousClock()
    let view = ObjectContext(store: store, name: "view")
    let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")]),
                                                  context: view)
    let fetchStart = clock.now
    try view.performAndWait { try controller.performFetch() }
    let fetchTime = clock.now - fetchStart
    let fetched = view.performAndWait { controller.count }
    let arrival = Arrival()
    let signal = DispatchSemaphore(value: 0)
    view.performAndWait {
        controller.didChange = { _ in
            arrival.record(clock.now)
            signal.signal()
        }
    }

    let writer = ObjectContext(store: store, name: "writer")
    var fromStart: [Duration] = [], fromReturn: [Duration] = []
    for i in 0..<saves {
        let start = clock.now
        try writer.performAndWait {
            let item = try writer.insert("TodoItem")
            try item.setValues(["name": .string("new \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double((i &* 104_729) % count))),
                                "done": false])
            try writer.save()
        }
        let returned = clock.now
        signal.wait()
        fromStart.append(arrival.last - start)
        fromReturn.append(max(.zero, arrival.last - returned))
    }
    let changesBefore = arrival.count
    let batchStart = clock.now
    _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)]))
    signal.wait()
    let batchTime = arrival.last - batchStart
    view.performAndWait {}   // any later change would have been reported by now
    let batchChanges = arrival.count - changesBefore

    func percentile(_ values: [Duration], _ p: Double) -> Duration {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
    let report = """
        observe \(count): fetch of \(fetched) sorted rows \(fetchTime)
          one-object save -> controller change, from the save's start: p50 \(percentile(fromStart, 0.5)), p99 \(percentile(fromStart, 0.99)) (\(saves) saves)
          one-object save -> controller change, from the save's return: p50 \(percentile(fromReturn, 0.5)), p99 \(percentile(fromReturn, 0.99))
          batch update of \(count) rows -> controller change: \(batchTime), \(batchChanges) change(s)

        """
    print(report, terminator: "")
}
