import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Crashes through the storage seam with persistent history on: after any crash, history
/// holds exactly the transactions the recovered store has (no lost one claimed, none of
/// the kept ones missing, the log trimmed by checkpoints notwithstanding).
///
/// Knobs: `STRATA_HISTORY_CRASH_POINTS` (seeds, default 60), `STRATA_HISTORY_SEED` (first seed).
@Suite struct HistoryCrashTests {
    static let directory = "/store"

    static func options(_ fs: SimulatedFileSystem) -> PersistentStore.Options {
        var options = GraphCrashTests.options(fs)
        options.persistentHistory = .untilPurged
        return options
    }

    /// What history says of one transaction, compared between runs.
    struct Summary: Equatable, CustomStringConvertible {
        var kind: PersistentHistoryTransaction.Kind
        var author: String?
        var inserted: Int, updated: Int, deleted: Int
        var properties: [Set<String>]

        init(_ t: PersistentHistoryTransaction) {
            kind = t.kind
            author = t.author
            inserted = t.insertedObjectIDs.count
            updated = t.updatedObjectIDs.count
            deleted = t.deletedObjectIDs.count
            properties = t.changeGroups.map(\.updatedProperties)
        }

        var description: String { "\(kind) by \(author ?? "-") +\(inserted) ~\(updated) -\(deleted) \(properties)" }
    }

    /// Runs the workload of `seed` (saves, checkpoints, batch updates) until it ends or fails;
    /// returns the history it saw (all of it, for a run without a crash) and the I/O calls.
    static func runWorkload(_ fs: SimulatedFileSystem, seed: UInt64) -> (history: [UInt64: Summary], calls: Int) {
        var rng = SplitMix64(seed: seed)
        guard let store = try? PersistentStore.open(at: directory, schema: GraphSchemas.library, options: options(fs)) else {
            return ([:], fs.callCount)
        }
        let context = ObjectContext(store: store, name: "writer")
        for step in 0..<(6 + Int(rng.next() % 10)) {
            do {
                switch rng.next() % 6 {
                case 0:
                    try store.checkpoint()
                case 1:
                    var update = BatchUpdateRequest(entityName: "Author", propertiesToUpdate: ["active": .constant(.bool(step % 2 == 0))])
                    update.transactionAuthor = "batch \(step)"
                    _ = try store.execute(update)
                default:
                    try context.performAndWait { () throws in
                        for _ in 0..<(1 + Int(rng.next() % 3)) { try GraphCrashTests.randomChange(context, store, &rng) }
                        try context.save()
                    }
                }
            } catch {
                break
            }
        }
        let history = (try? store.history()) ?? []
        return (Dictionary(uniqueKeysWithValues: history.map { ($0.transactionNumber, Summary($0)) }), fs.callCount)
    }

    /// Reopens `image` and checks that history lists every transaction after the store's
    /// creation, up to its last, each as the reference run recorded it.
    static func checkHistory(_ image: SimulatedFileSystem, _ reference: [UInt64: Summary], _ what: String) {
        do {
            let store = try PersistentStore.open(at: directory, schema: GraphSchemas.library, options: options(image))
            let history = try store.history()
            let expected = store.lastLSN >= 2 ? Array(2...store.lastLSN) : []
            #expect(history.map(\.transactionNumber) == expected, "\(what): history lists \(history.map(\.transactionNumber)), the store has \(expected)")
            for transaction in history {
                #expect(Summary(transaction) == reference[transaction.transactionNumber], "\(what): transaction \(transaction.transactionNumber) is recorded as \(Summary(transaction)), not \(reference[transaction.transactionNumber].map(String.init(describing:)) ?? "nothing")")
            }
            try store.close()
        } catch {
            Issue.record("\(what): reopening failed: \(error)")
        }
    }

    @Test func crashAtRandomCallsKeepsHistoryEqualToTheStore() {
        let points = testKnob("STRATA_HISTORY_CRASH_POINTS", default: 60)
        let base = UInt64(testKnob("STRATA_HISTORY_SEED", default: 1))
        for point in 0..<points {
            let seed = base &+ UInt64(point)
            let replay = "seed \(seed) (STRATA_HISTORY_SEED=\(seed) STRATA_HISTORY_CRASH_POINTS=1 replays it)"
            let reference = Self.runWorkload(SimulatedFileSystem(), seed: seed)
            var rng = SplitMix64(seed: seed ^ 0x4157)
            let fs = SimulatedFileSystem()
            fs.crash(atCall: 1 + Int(rng.next() % UInt64(reference.calls + 10)))
            _ = Self.runWorkload(fs, seed: seed)
            Self.checkHistory(fs.powerLossImage(seed: seed), reference.history, "power loss, \(replay)")
            Self.checkHistory(fs.processCrashImage(), reference.history, "process crash, \(replay)")
        }
        print("history crash: \(points) crash points checked")
    }

    /// History written out for transactions whose log frames were then lost (damage to the
    /// log's last frame, opened with point-in-time recovery) is cut off at the next open,
    /// durably, so the transaction that takes the same LSN afterwards is the one history
    /// shows, after a power loss too.
    @Test func historyPastTheRecoveredLogIsCutOff() throws {
        let fs = SimulatedFileSystem()
        var store = try PersistentStore.open(at: Self.directory, schema: GraphSchemas.library, options: Self.options(fs))
        let first = ObjectContext(store: store, name: "first")
        for i in 0..<3 { _ = try PersistentHistoryTests.addAuthors(first, ["a\(i)"]) }
        try store.close()
        // Damage the log's last frame (transaction 4): history has it, the log will not.
        let segment = try #require(try fs.contentsOfDirectory(Self.directory).filter { StoreFileNames.segmentLSN($0) != nil }.max())
        let bytes = try #require(fs.contents(of: "\(Self.directory)/\(segment)"))
        fs.setContents(of: "\(Self.directory)/\(segment)", to: Array(bytes.dropLast(7)))
        var pointInTime = Self.options(fs)
        pointInTime.storage.recoveryMode = .pointInTime
        store = try PersistentStore.open(at: Self.directory, schema: GraphSchemas.library, options: pointInTime)
        #expect(store.lastLSN == 3)
        #expect(try store.history().map(\.transactionNumber) == [2, 3])
        let second = ObjectContext(store: store, name: "second")
        _ = try PersistentHistoryTests.addAuthors(second, ["b"])
        #expect(try store.history().map(\.author) == ["first", "first", "second"])
        for seed in UInt64(1)...8 {
            let image = fs.powerLossImage(seed: seed)
            let reopened = try PersistentStore.open(at: Self.directory, schema: GraphSchemas.library, options: Self.options(image))
            #expect(try reopened.history().map(\.author) == ["first", "first", "second"], "power loss seed \(seed)")
            try reopened.close()
        }
        try store.close()
    }
}
