import Foundation
import StrataStorage
import Synchronization
import Testing
import StrataTestSupport
@testable import Strata

/// Many contexts saving at once from different queues: no lost update, no crash. Run these
/// under the thread sanitizer too (`--filter Concurrency`).
///
/// Knobs: `STRATA_CONCURRENCY_CONTEXTS` (default 8), `STRATA_CONCURRENCY_SAVES` (saves per
/// context, default 200).
@Suite struct ConcurrencyTests {
    static let contexts = testKnob("STRATA_CONCURRENCY_CONTEXTS", default: 8)
    static let saves = testKnob("STRATA_CONCURRENCY_SAVES", default: 200)

    /// Seeds the shared counter note and a shared "board" note; returns their IDs.
    static func seed(_ fixture: StoreFixture) throws -> (counter: ObjectID, board: ObjectID) {
        let context = fixture.context("seed")
        return try context.performAndWait {
            let counter = try context.insert("Note"), board = try context.insert("Note")
            try counter.setValues(["title": "counter", "body": "", "count": 0])
            try board.setValues(["title": "board", "body": "", "count": 0])
            try context.save()
            return (counter.objectID, board.objectID)
        }
    }

    /// Adds one to the counter, retrying on `.conflict` after a refresh; returns the retries.
    static func increment(_ context: ObjectContext, _ id: ObjectID) throws -> Int {
        var retries = 0
        while true {
            let counter = context.object(with: id)
            try counter.setValue(.int(try counter.int("count")! + 1), forKey: "count")
            do {
                try context.save()
                return retries
            } catch let error as StrataError where error.code == .conflict {
                retries += 1
                context.refresh(counter, mergeChanges: false)
            }
        }
    }

    @Test func concurrentSavesLoseNoUpdate() async throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let (counterID, boardID) = try Self.seed(fixture)
        let retries = Collected<Int>()
        // Half the contexts increment the counter under `.error` with retries; the other half
        // insert notes and overwrite the shared board's body under `.objectTrump`.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<Self.contexts {
                let incrementer = worker % 2 == 0
                let context = fixture.context("worker \(worker)", policy: incrementer ? .error : .objectTrump)
                group.addTask {
                    for step in 0..<Self.saves {
                        try await context.perform {
                            if incrementer {
                                let count = try Self.increment(context, counterID)
                                retries.append(count)
                            } else {
                                let note = try context.insert("Note")
                                try note.setValues(["title": .string("w\(worker)"), "body": .string("\(step)")])
                                try context.object(with: boardID).setValue(.string("w\(worker) s\(step)"), forKey: "body")
                                try context.save()
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let incrementers = (Self.contexts + 1) / 2, inserters = Self.contexts / 2
        let dump = GraphDump(fixture.store)
        #expect(dump.entities["Note"]?[counterID.primaryKey]?["count"] == .int(Int64(incrementers * Self.saves)))
        #expect(fixture.store.rowCounts["Note"] == 2 + inserters * Self.saves)
        for worker in stride(from: 1, to: Self.contexts, by: 2) {
            let bodies = Set(dump.entities["Note"]!.values.filter { $0["title"] == .string("w\(worker)") }.map { $0["body"]! })
            #expect(bodies.count == Self.saves, "worker \(worker)'s inserts are all there")
        }
        let board = dump.entities["Note"]?[boardID.primaryKey]?["body"]
        #expect(board.map { if case .string(let s) = $0 { s.hasSuffix("s\(Self.saves - 1)") } else { false } } == true,
                "the board holds some worker's last write: \(String(describing: board))")
        print("concurrency: \(retries.values.reduce(0, +)) conflict retries for \(incrementers * Self.saves) increments")
        try fixture.reopen()
        #expect(GraphDump(fixture.store) == dump)
    }

    @Test func concurrentReadersSeeConsistentVersionsWhileWritersCommit() throws {
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let (counterID, _) = try Self.seed(fixture)
        let finishedWriters = Atomic(0)
        let readerFailures = Locked<[String]>([])
        let writers = 2, readers = 2, rounds = Self.saves / 2
        let group = DispatchGroup()
        // Plain threads, not a thread pool: the readers spin until the writers finish, so
        // every worker must have a thread of its own.
        let contexts = (0..<(writers + readers)).map { fixture.context($0 < writers ? "writer \($0)" : "reader \($0)") }
        for (worker, context) in contexts.enumerated() {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                if worker < writers {
                    do {
                        for _ in 0..<rounds { _ = try context.performAndWait { try Self.increment(context, counterID) } }
                    } catch {
                        readerFailures.withLock { $0.append("writer \(worker): \(error)") }
                    }
                    finishedWriters.add(1, ordering: .releasing)
                    return
                }
                // A reader refreshes the counter again and again: the value never goes down.
                context.performAndWait {
                    var last: Int64 = 0
                    while finishedWriters.load(ordering: .acquiring) < writers {
                        let counter = context.object(with: counterID)
                        context.refresh(counter, mergeChanges: false)
                        guard let value = try? counter.int("count") else {
                            readerFailures.withLock { $0.append("reader could not read the counter") }
                            return
                        }
                        if value < last { readerFailures.withLock { $0.append("counter went from \(last) to \(value)") } }
                        last = value
                    }
                }
            }
            thread.start()
        }
        group.wait()
        #expect(readerFailures.withLock { $0 }.isEmpty, "\(readerFailures.withLock { $0 })")
        let dump = GraphDump(fixture.store)
        #expect(dump.entities["Note"]?[counterID.primaryKey]?["count"] == .int(Int64(writers * rounds)))
    }
}
