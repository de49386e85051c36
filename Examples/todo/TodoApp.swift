import Dispatch
import Foundation
import StrataModels
import Synchronization

/// The Core Data to-do tutorial as a terminal program: a million items, populated with
/// batch inserts, fetched asynchronously with progress and Ctrl-C, checked with one batch
/// update, and edited one at a time through a context.
@main
struct TodoApp {
    /// Rows per batch insert while populating: each is one transaction, and the bar moves
    /// between them.
    static let insertSlice = 50_000

    static func main() {
        let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
        let interruption = Interruption()
        interruption.install()
        do {
            try run(options, interruption: interruption)
        } catch {
            Terminal.error("todo: \(error)\n")
            exit(1)
        }
    }

    /// The schema of the typed model: the same entity as the builder's `TodoItem` with
    /// `name`, `createdAt` and `done` (default `false`), so stores of earlier runs open.
    static func makeSchema() throws -> Schema {
        try Schema(TodoItem.self)
    }

    static func run(_ options: Options, interruption: Interruption) throws {
        let clock = ContinuousClock()
        let started = clock.now
        Terminal.out("Strata to-do example: store \(options.store), \(Terminal.grouped(options.items)) items")

        // 1. Open (or create) the store. Opening replays the log written since the last snapshot.
        let (store, openTime) = try Terminal.timed {
            try PersistentStore.open(at: options.store, schema: makeSchema())
        }
        let report = store.recoveryReport
        Terminal.out("Opened the store in \(Terminal.ms(openTime)): LSN \(store.lastLSN), "
                     + (report.snapshotFile.map { "snapshot \($0) + " } ?? "no snapshot + ")
                     + "\(Terminal.grouped(report.replayedTransactions)) transactions replayed")
        func finish(exitCode: Int32) throws -> Never {
            let (_, closeTime) = try Terminal.timed { try store.close() }
            Terminal.out("Closed the store in \(Terminal.ms(closeTime)). Total \(Terminal.ms(started.duration(to: clock.now))).")
            exit(exitCode)
        }

        // 2. Populate on first run (or finish an interrupted population).
        let existing = store.rowCounts["TodoItem"] ?? 0
        if existing < options.items {
            let inserted = try populate(store, from: existing, to: options.items, interruption: interruption)
            if inserted < options.items - existing {
                Terminal.out("Interrupted after \(Terminal.grouped(existing + inserted)) items; run again to add the rest.")
                try finish(exitCode: 130)
            }
            // A snapshot now lets the next open load columns instead of replaying a million inserts.
            let (lsn, checkpointTime) = try Terminal.timed { try store.checkpoint() }
            Terminal.out("Checkpoint: snapshot of LSN \(lsn) written, log trimmed, in \(Terminal.ms(checkpointTime))")
        }

        let context = ObjectContext(store: store, concurrencyType: .privateQueue, name: "todo")

        // 3. The asynchronous fetch, sorted by creation date, with progress and Ctrl-C.
        guard let fetch = try fetchAll(in: context, options: options, interruption: interruption) else {
            try finish(exitCode: 130)
        }
        try context.performAndWait {
            guard let items = fetch.finalResult else { return }
            Terminal.out("The first items, oldest first:")
            for object in items.prefix(3) {
                Terminal.out("  \(try context.model(for: object, as: TodoItem.self).summary)")
            }
        }

        // A live list of the items not done: a fetched-results controller on the context.
        let (live, liveTime) = try Terminal.timed { try LiveList(context: context) }
        live.show("fetched in \(Terminal.ms(liveTime))")

        // 4. "Check all": one batch update in the store, then merged into the context. The
        // result's IDs are key ranges (an ObjectIDSet): nothing to convert for a million rows.
        var checkAll = try BatchUpdateRequest(for: TodoItem.self, set: \.done, to: true, where: #Predicate { !$0.done })
        checkAll.resultType = .objectIDs
        let (checked, checkTime) = try Terminal.timed { try store.execute(checkAll) }
        let updated = checked.objectIDSet ?? []
        let (refreshed, refreshTime) = Terminal.timed {
            ObjectContext.mergeChanges(updated: updated, into: [context])
            return context.performAndWait { context.registeredObjects.count { updated.contains($0.objectID) } }
        }
        let (firstDone, doneCount) = try context.performAndWait {
            let first = try fetch.finalResult?.first.map { try context.model(for: $0, as: TodoItem.self) }
            return (first?.done, try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.done })))
        }
        Terminal.out("Check all (batch update): \(Terminal.grouped(updated.count)) items marked done in "
                     + "\(Terminal.ms(checkTime)), LSN \(checked.lsn); \(refreshed) loaded objects merged in "
                     + "\(Terminal.ms(refreshTime)); the first item now reads done = \(firstDone.map(String.init) ?? "-"); "
                     + "\(Terminal.grouped(doneCount)) items are done")
        live.show("after check all, no refresh")
        if interruption.isInterrupted { try finish(exitCode: 130) }

        // 5. Single items through the context: add one, toggle one, delete one, each saved.
        let (added, addTime) = try Terminal.timed {
            try context.performAndWait {
                let item = TodoItem(name: "Write the README")
                context.insert(item)
                try context.save()
                return item.summary
            }
        }
        Terminal.out("Added   \(added)  (insert + save: \(Terminal.ms(addTime)))")

        let (toggled, toggleTime) = try Terminal.timed {
            try context.performAndWait { () throws -> String? in
                guard let items = fetch.finalResult, items.count >= 2 else { return nil }
                let item = try context.model(for: items[1], as: TodoItem.self)
                item.done.toggle()
                try context.save()
                return item.summary
            }
        }
        if let toggled { Terminal.out("Toggled \(toggled)  (change + save: \(Terminal.ms(toggleTime)))") }

        let (deleted, deleteTime) = try Terminal.timed {
            try context.performAndWait { () throws -> String? in
                guard let object = fetch.finalResult?.first else { return nil }
                let item = try context.model(for: object, as: TodoItem.self)
                let description = item.summary
                context.delete(item)
                try context.save()
                return description
            }
        }
        if let deleted { Terminal.out("Deleted \(deleted)  (delete + save: \(Terminal.ms(deleteTime)))") }
        live.show("after the edits")

        // 6. Where the store stands.
        let remaining = try context.performAndWait {
            try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { !$0.done }))
        }
        let counts = store.rowCounts.sorted { $0.key < $1.key }
            .map { "\($0.key) \(Terminal.grouped($0.value))" }.joined(separator: ", ")
        Terminal.out("Row counts: \(counts) (\(Terminal.grouped(remaining)) not done); last LSN \(store.lastLSN)")
        try finish(exitCode: 0)
    }

    /// Batch-inserts items `from..<to` in slices of ``insertSlice``, with a progress bar.
    /// Returns how many it inserted (fewer when Ctrl-C stopped it between two slices).
    static func populate(_ store: PersistentStore, from start: Int, to end: Int,
                         interruption: Interruption) throws -> Int {
        let count = end - start
        let slices = (count + insertSlice - 1) / insertSlice
        Terminal.out("Populating \(Terminal.grouped(count)) items: \(slices) batch inserts of up to "
                     + "\(Terminal.grouped(insertSlice)) rows")
        let base = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z
        let tasks = ["Buy milk", "Call the bank", "Water the plants", "Pay rent", "Fix the bike",
                     "Read a chapter", "Book flights", "Answer email"]
        var bar = ProgressBar(total: count, unit: "items")
        bar.update(0)
        var inserted = 0
        let (_, time) = try Terminal.timed {
            while inserted < count, !interruption.isInterrupted {
                let first = start + inserted
                let rows = min(insertSlice, count - inserted)
                // Each row is a model made by its initializer (so `done` takes its declared
                // default); the models never enter a context.
                let request = BatchInsertRequest(for: TodoItem.self, count: rows) { i in
                    let n = first + i
                    // One item every 30 s, give or take an hour, so the sort has work to do.
                    var random = SplitMix64(seed: UInt64(n))
                    let jitter = Double(random.next() % 7_200) - 3_600
                    return TodoItem(name: "\(tasks[n % tasks.count]) #\(n + 1)",
                                    createdAt: base.addingTimeInterval(Double(n) * 30 + jitter))
                }
                _ = try store.execute(request)
                inserted += rows
                bar.update(inserted)
            }
        }
        bar.finish()
        let perSecond = Double(inserted) / max(Terminal.milliseconds(time) / 1_000, 1e-9)
        Terminal.out("Inserted \(Terminal.grouped(inserted)) items in \(Terminal.ms(time)) "
                     + "(\(Terminal.grouped(Int(perSecond))) items/s)")
        return inserted
    }

    /// Runs the asynchronous fetch of every item sorted by `createdAt`, printing "Fetched N
    /// records" as it goes. Returns the finished fetch, or `nil` when Ctrl-C cancelled it.
    static func fetchAll(in context: ObjectContext, options: Options,
                         interruption: Interruption) throws -> AsynchronousFetchResult? {
        // The typed descriptor's request: the asynchronous fetch runs it on a background queue.
        var all = try FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.createdAt)]).fetchRequest()
        all.fetchBatchSize = 50  // objects are made 50 at a time as the list is read
        Terminal.out("Fetching every item sorted by createdAt, asynchronously (Ctrl-C cancels)")

        let clock = ContinuousClock()
        let start = clock.now
        let finished = DispatchSemaphore(value: 0)
        let firstUpdate = Mutex<Duration?>(nil)
        let printed = Mutex(-1)  // the quarter last printed (when stdout is not a terminal)
        let lastFound = Mutex(0)  // records found, as the last update said
        let request = AsynchronousFetchRequest(fetchRequest: all) { _ in finished.signal() }
        request.progressHandler = { progress in
            firstUpdate.withLock { if $0 == nil { $0 = start.duration(to: clock.now) } }
            lastFound.withLock { $0 = progress.found }
            // The fraction is of the work (scan, sort, building the results), so the bar
            // moves through the sort too.
            let status = "Fetched \(Terminal.grouped(progress.found)) records (\(progress.phase), \(Int(progress.fraction * 100))%)"
            if Terminal.stdoutIsTTY {
                Terminal.out("\r" + status + "   ", terminator: "")
            } else {
                let quarter = Int(progress.fraction * 4)
                let show = printed.withLock { last -> Bool in
                    guard quarter > last || progress.isFinished else { return false }
                    last = progress.isFinished ? 4 : quarter
                    return true
                }
                if show { Terminal.out(status) }
            }
            if let limit = options.interruptAfter, progress.found >= limit, !progress.isFinished,
               !interruption.isInterrupted {
                interruption.simulateCtrlC()
            }
        }
        let result = try context.performAndWait { try context.execute(request) }
        interruption.watch(result)
        finished.wait()
        interruption.watch(nil)
        let elapsed = start.duration(to: clock.now)
        if Terminal.stdoutIsTTY { Terminal.out("") }

        let found = lastFound.withLock { $0 }
        let first = firstUpdate.withLock { $0 }.map { "; first progress update after \(Terminal.ms($0))" } ?? ""
        return try context.performAndWait {
            if let error = result.operationError {
                guard error.code == .cancelled else { throw error }
                Terminal.out("Cancelled after \(Terminal.grouped(found)) records (\(Terminal.ms(elapsed))\(first))")
                return nil
            }
            Terminal.out("Fetched \(Terminal.grouped(result.count ?? 0)) records in \(Terminal.ms(elapsed))\(first)")
            return result
        }
    }
}
