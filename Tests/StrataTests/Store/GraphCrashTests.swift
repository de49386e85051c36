import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Crashes through the storage seam: a random workload of saves (and the odd checkpoint)
/// runs on a ``SimulatedFileSystem`` that dies at a random call; the disk after a power loss
/// (and after a plain process crash) must reopen to exactly the state after some prefix of
/// the saves, including every save that returned.
///
/// Knobs: `STRATA_GRAPH_CRASH_POINTS` (seeds to run, default 200), `STRATA_GRAPH_SEED`
/// (first seed, default 1).
@Suite struct GraphCrashTests {
    static let directory = "/store"

    /// Store options on `fs`, durable saves, small segments so checkpoints and rotations
    /// happen within a short workload.
    static func options(_ fs: SimulatedFileSystem) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.storage.fileSystem = fs
        options.storage.segmentSize = 4096
        options.automaticCheckpointBytes = nil
        return options
    }

    /// What a workload run did: the state after each save (index 0: the empty store) and how
    /// many saves returned successfully before the first failure.
    struct Run {
        var states: [GraphDump] = []
        var acknowledged = 0
        var attempted = 0
        var calls = 0
    }

    /// Runs the workload of `seed` on `fs` until it ends or the first error.
    static func runWorkload(_ fs: SimulatedFileSystem, seed: UInt64) -> Run {
        var rng = SplitMix64(seed: seed)
        var run = Run()
        guard let store = try? PersistentStore.open(at: directory, schema: GraphSchemas.library, options: options(fs)) else {
            return run
        }
        run.states.append(GraphDump(store))
        let context = ObjectContext(store: store)
        let saves = 4 + Int(rng.next() % 10)
        for _ in 0..<saves {
            if rng.next() % 6 == 0 {
                do { try store.checkpoint() } catch { break }
            }
            run.attempted += 1
            do {
                try context.performAndWait { () throws in
                    for _ in 0..<(1 + Int(rng.next() % 4)) { try randomChange(context, store, &rng) }
                    try context.save()
                }
            } catch {
                break
            }
            run.acknowledged += 1
            run.states.append(GraphDump(store))
        }
        run.calls = fs.callCount
        return run
    }

    /// One random change: insert an author with books, update, move a book, set a passport,
    /// or delete (cascading).
    static func randomChange(_ context: ObjectContext, _ store: PersistentStore, _ rng: inout SplitMix64) throws {
        func existing(_ entity: String) -> ManagedObject? {
            let keys = store.currentVersion.tables[store.layoutIndex[entity]!].allKeys
            guard !keys.isEmpty else { return nil }
            let object = context.object(with: ObjectID(storeID: store.storeID, entityName: entity, primaryKey: keys[Int(rng.next() % UInt64(keys.count))]))
            return object.isDeleted ? nil : object
        }
        switch rng.next() % 6 {
        case 0, 1:
            let author = try context.insert("Author")
            try author.setValue(.string("a\(rng.next() % 1000)"), forKey: "name")
            try author.setValue(rng.next() % 2 == 0 ? .null : .date(Date(timeIntervalSince1970: Double(rng.next() % 1_000_000))), forKey: "born")
            try author.setValue(.binary(Data((0..<Int(rng.next() % 200)).map { UInt8(truncatingIfNeeded: $0) })), forKey: "photo")
            for _ in 0..<Int(rng.next() % 3) {
                let book = try context.insert("Book")
                try book.setValue(.string("b\(rng.next() % 1000)"), forKey: "title")
                try author.add(book, toKey: "books")
                if rng.next() % 2 == 0 {
                    let chapter = try context.insert("Chapter")
                    try chapter.setValue(.int(Int64(rng.next() % 50)), forKey: "number")
                    try book.add(chapter, toKey: "chapters")
                }
            }
        case 2:
            guard let author = existing("Author") else { return }
            try author.setValue(.int(Int64(rng.next() % 150)), forKey: "age")
            try author.setValue(.uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012llx", rng.next() % 0xFFFF_FFFF))!), forKey: "tag")
        case 3:
            guard let book = existing("Book"), let author = existing("Author") else { return }
            try author.add(book, toKey: "books")
        case 4:
            guard let author = existing("Author") else { return }
            let passport = try context.insert("Passport")
            try passport.setValue(.string("p\(rng.next() % 100)"), forKey: "number")
            try author.setObject(passport, forKey: "passport")
        default:
            if rng.next() % 2 == 0, let author = existing("Author") {
                context.delete(author)
            } else if let book = existing("Book") {
                context.delete(book)
            }
        }
    }

    /// Checks that `image` reopens to one of `run.states[acknowledged...attempted]`, then
    /// takes and keeps one more save.
    static func checkRecovery(_ image: SimulatedFileSystem, _ expected: Run, _ what: String) {
        do {
            let store = try PersistentStore.open(at: directory, schema: GraphSchemas.library, options: options(image))
            let recovered = GraphDump(store)
            let candidates = expected.states.indices.filter { $0 >= expected.acknowledged && $0 <= expected.attempted }
            let match = candidates.first { expected.states[$0] == recovered }
            #expect(match != nil, "\(what): recovered \(recovered) is not the state after \(expected.acknowledged)…\(expected.attempted) saves")
            let context = ObjectContext(store: store)
            try context.performAndWait { () throws in
                let author = try context.insert("Author")
                try author.setValue("after recovery", forKey: "name")
                try context.save()
            }
            let after = GraphDump(store)
            try store.close()
            let again = try PersistentStore.open(at: directory, schema: GraphSchemas.library, options: options(image))
            #expect(GraphDump(again) == after, "\(what): a save after recovery was lost")
            try again.close()
        } catch {
            Issue.record("\(what): reopening failed: \(error)")
        }
    }

    @Test func crashAtRandomCallsRecoversAPrefixOfTheSaves() {
        let points = testKnob("STRATA_GRAPH_CRASH_POINTS", default: 200)
        let base = UInt64(testKnob("STRATA_GRAPH_SEED", default: 1))
        for point in 0..<points {
            let seed = base &+ UInt64(point)
            let replay = "seed \(seed) (STRATA_GRAPH_SEED=\(seed) STRATA_GRAPH_CRASH_POINTS=1 replays it)"
            let reference = Self.runWorkload(SimulatedFileSystem(), seed: seed)
            guard reference.acknowledged == reference.attempted else {
                Issue.record("\(replay): the workload fails without a crash")
                continue
            }
            var rng = SplitMix64(seed: seed ^ 0x5EED)
            let fs = SimulatedFileSystem()
            fs.crash(atCall: 1 + Int(rng.next() % UInt64(reference.calls + 10)))
            var crashed = Self.runWorkload(fs, seed: seed)
            // The states are the reference run's (same seed, same keys) up to the crash.
            #expect(Array(reference.states.prefix(crashed.states.count)) == crashed.states, "\(replay): workload diverged")
            crashed.states = reference.states
            Self.checkRecovery(fs.powerLossImage(seed: seed), crashed, "power loss, \(replay)")
            Self.checkRecovery(fs.processCrashImage(), crashed, "process crash, \(replay)")
        }
        print("graph crash: \(points) crash points checked (each reopened after a power loss and after a process crash)")
    }
}
