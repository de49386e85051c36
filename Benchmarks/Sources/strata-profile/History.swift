import Foundation
import Strata

/// `history N`: persistent history's costs, in one run.
///
/// 1. The commit path: one-object saves on two stores open side by side, one without
///    history and one with it (`.untilPurged`), alternating in rounds so both see the same
///    machine; p50 and p99 of each (the log is not synced, `Durability.never`, so the
///    figure is the commit's own work, not fsync).
/// 2. Reading the last 10,000 transactions: `store.history(after:)` with checkpoints in
///    between so the entries come from history files; the median of several reads, and the
///    bytes history takes per transaction.
/// 3. A batch update of N rows with and without history: its time, and the bytes of its
///    history entry.
func measureHistory(directory: String, count: Int, saves: Int = 12_000) throws {
    func open(_ name: String, history: Bool) throws -> PersistentStore {
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        options.storage.durability = .never
        options.persistentHistory = history ? .untilPurged : nil
        return try PersistentStore.open(at: "\(directory)-\(name)", schema: schema, options: options)
    }
    let plain = try open("plain", history: false)
    let tracked = try open("history", history: true)
    defer { try? plain.close(); try? tracked.close() }
    let clock = ContinuousClock()
    func percentile(_ values: [Duration], _ p: Double) -> Duration {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    // 1. Commit path.
    var latencies: [String: [Duration]] = ["plain": [], "history": []]
    let contexts = [("plain", ObjectContext(store: plain, name: "writer")), ("history", ObjectContext(store: tracked, name: "writer"))]
    let rounds = 12
    for round in 0..<rounds {
        for (name, context) in round % 2 == 0 ? contexts : contexts.reversed() {
            for i in 0..<(saves / rounds) {
                let start = clock.now
                try context.performAndWait {
                    let item = try context.insert("TodoItem")
                    try item.setValues(["name": .string("item \(round)-\(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(i))),
                                        "done": false])
                    try context.save()
                }
                latencies[name]!.append(clock.now - start)
            }
            if name == "history" && round % 4 == 3 { try tracked.checkpoint() }
        }
    }
    try tracked.checkpoint()

    // 2. Reading the last 10,000.
    let last = tracked.lastLSN
    let token = PersistentHistoryToken(lsn: last - 10_000)
    var reads: [Duration] = []
    var read = 0
    for _ in 0..<9 {
        let start = clock.now
        let transactions = try tracked.history(after: token)
        reads.append(clock.now - start)
        read = transactions.count
    }
    var withIDs: [Duration] = []
    for _ in 0..<5 {
        let start = clock.now
        var ids = 0
        for transaction in try tracked.history(after: token) { ids &+= transaction.insertedObjectIDs.count + transaction.updatedObjectIDs.count }
        withIDs.append(clock.now - start)
        precondition(ids >= 10_000)
    }
    let stats = tracked.historyStatistics

    // 3. A batch update of `count` rows.
    var batch: [String: Duration] = [:]
    var entryBytes: Int64 = 0
    for (name, store) in [("plain", plain), ("history", tracked)] {
        _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", count: count) { i, row in
            row["name"] = .string("row \(i)")
            row["createdAt"] = .date(Date(timeIntervalSince1970: Double(i)))
            row["done"] = false
        })
        let before = store.historyStatistics.bytes
        let start = clock.now
        _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)]))
        batch[name] = clock.now - start
        if name == "history" { entryBytes = store.historyStatistics.bytes - before }
    }

    print("""
        history: commit path, \(saves / 2) one-object saves per store (Durability.never, same run, alternating rounds)
          without history: p50 \(percentile(latencies["plain"]!, 0.5)), p99 \(percentile(latencies["plain"]!, 0.99))
          with history:    p50 \(percentile(latencies["history"]!, 0.5)), p99 \(percentile(latencies["history"]!, 0.99))
        history: read of the last 10,000 transactions (\(read) read; \(stats.transactions) kept in \(stats.files) files, \(stats.bytes) bytes, \(stats.bytes / Int64(max(1, stats.transactions))) bytes per transaction)
          history(after:): median \(percentile(reads, 0.5)), min \(reads.min()!)
          history(after:) + counting every changed ID: median \(percentile(withIDs, 0.5))
        history: batch update of \(count) rows: without history \(batch["plain"]!), with history \(batch["history"]!); its history entry: \(entryBytes) bytes

        """, terminator: "")
}
