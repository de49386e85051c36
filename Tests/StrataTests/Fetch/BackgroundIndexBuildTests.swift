import Foundation
import StrataStorage
import StrataTestSupport
import Testing
@testable import Strata

#if canImport(Glibc)
import Glibc
#endif

/// On a large table a fetch does not wait for an index that is not built yet: it scans (or
/// sorts) as without the index, the index is built on a background thread of the lowest
/// priority, and the fetches after the build use it. A version committed during the build
/// takes it over instead of starting another. The tests hold the builds back (an
/// ``IndexBuilder`` that keeps them until told to run them) and lower the table size from
/// which builds go to the background.
@Suite struct BackgroundIndexBuildTests {
    /// `LazyIndexTests`' notes, indexed on `rank` (0–49) and `title` (`n<i>`).
    static let schema = LazyIndexTests.schema

    /// Builds started by fetches, kept until ``runAll()``.
    final class HeldBuilds: Sendable {
        private let waiting = Locked<[@Sendable () -> Void]>([])
        private let started = Locked(0)

        var builder: IndexBuilder {
            IndexBuilder { build in
                self.started.withLock { $0 += 1 }
                self.waiting.withLock { $0.append(build) }
            }
        }

        /// How many builds were started so far.
        var count: Int { started.withLock { $0 } }

        /// Runs the builds started so far, on the calling thread.
        func runAll() {
            let builds = waiting.withLock { waiting in
                defer { waiting = [] }
                return waiting
            }
            for build in builds { build() }
        }
    }

    /// A store that builds indexes in the background from 100 rows, on `held` (or on the
    /// real low-priority threads when `held` is `nil`).
    static func open(_ directory: TemporaryDirectory, _ held: HeldBuilds?) throws -> PersistentStore {
        var options = PersistentStore.Options()
        options.backgroundIndexBuildMinimumRows = 100
        if let held { options.indexBuilder = held.builder }
        return try PersistentStore.open(at: directory.path, schema: schema, options: options)
    }

    static func insert(_ store: PersistentStore, ranks: Range<Int>) throws {
        try LazyIndexTests.insert(ObjectContext(store: store), ranks: ranks)
    }

    /// Runs `body` on a new store of `rows` notes whose builds `held` keeps (`realBuilds`:
    /// whose builds run on the real low-priority threads; `held` then sees none).
    static func withHeldStore(rows: Int, realBuilds: Bool = false, _ body: (PersistentStore, HeldBuilds) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let held = HeldBuilds()
        let store = try open(directory, realBuilds ? nil : held)
        defer { try? store.close() }
        try insert(store, ranks: 0..<rows)
        try body(store, held)
    }

    static func keys(_ store: PersistentStore, _ request: FetchRequest) throws -> [Int64] {
        try store.fetchRows(request).rows.map(\.primaryKey)
    }

    static func request(_ format: String, sortedBy key: String? = nil) throws -> FetchRequest {
        FetchRequest(entityName: "Note", predicate: try ObjectPredicate(format: format), sortKeys: key.map { [SortKey($0)] } ?? [])
    }

    /// The keys of the notes of rank `rank` among the first `count` (keys are one more than
    /// the insertion number).
    static func ranked(_ rank: Int, of count: Int) -> [Int64] {
        (0..<count).filter { $0 % 50 == rank }.map { Int64($0 + 1) }
    }

    @Test func aFetchScansWhileTheIndexIsBuiltAndTheFetchesAfterTheBuildUseIt() throws {
        try Self.withHeldStore(rows: 2_000) { store, held in

            let lookup = try Self.request("rank == 7")
            #expect(try Self.keys(store, lookup) == Self.ranked(7, of: 2_000))
            #expect(held.count == 1, "the fetch did not start the rank index's build")
            #expect(!store.currentVersion.tables[0].indexes[0].isBuilt, "the fetch built the index itself")
            let scanning = try store.fetchStrategy(lookup)
            #expect(scanning.lookupIndex == nil && scanning.indexesBeingBuilt == [["rank"]])
            #expect(scanning.description.contains("building: index (rank) in the background"), "\(scanning)")
            #expect(held.count == 1, "a second fetch started a second build")

            held.runAll()
            #expect(store.currentVersion.tables[0].indexes[0].isBuilt)
            let indexed = try store.fetchStrategy(lookup)
            #expect(indexed.lookupIndex == ["rank"] && indexed.indexesBeingBuilt.isEmpty, "\(indexed)")
            #expect(try Self.keys(store, lookup) == Self.ranked(7, of: 2_000))
            #expect(!store.currentVersion.tables[0].indexes[1].isBuilt, "the title index was built too")
        }
    }

    @Test func aVersionCommittedDuringTheBuildTakesItOver() throws {
        try Self.withHeldStore(rows: 2_000) { store, held in
            let lookup = try Self.request("rank == 3")
            #expect(try Self.keys(store, lookup) == Self.ranked(3, of: 2_000))
            #expect(held.count == 1)

            // Two commits while the build is held: their versions wait for it rather than
            // starting builds of their own, and their fetches still scan.
            try Self.insert(store, ranks: 2_000..<2_100)
            #expect(try Self.keys(store, lookup) == Self.ranked(3, of: 2_100))
            try Self.insert(store, ranks: 2_100..<2_150)
            #expect(try Self.keys(store, lookup) == Self.ranked(3, of: 2_150))
            #expect(held.count == 1, "a newer version started a build of its own")
            #expect(try store.fetchStrategy(lookup).indexesBeingBuilt == [["rank"]])

            // The build finishes on the old version; the newest one brings it up to date.
            held.runAll()
            let strategy = try store.fetchStrategy(lookup)
            #expect(strategy.lookupIndex == ["rank"], "\(strategy)")
            #expect(try Self.keys(store, lookup) == Self.ranked(3, of: 2_150))
            let table = store.currentVersion.tables[0]
            let entries = table.indexes[0].index(for: table).leaves.flatMap(\.entries)
            let rebuilt = TableIndex(properties: [0], table: table).leaves.flatMap(\.entries)
            #expect(entries.count == 2_150 && zip(entries, rebuilt).allSatisfy { IndexEntry.same($0, $1) })
            #expect(held.count == 1)

            // A commit after the build keeps the index built.
            try Self.insert(store, ranks: 2_150..<2_200)
            #expect(store.currentVersion.tables[0].indexes[0].isBuilt)
            #expect(try Self.keys(store, lookup) == Self.ranked(3, of: 2_200))
        }
    }

    @Test func aSortedFetchSortsWhileItsIndexIsBuilt() throws {
        try Self.withHeldStore(rows: 1_000) { store, held in
            let sorted = FetchRequest(entityName: "Note", sortKeys: [SortKey("rank")])
            // By rank, ties by key.
            let expected = (0..<1_000).sorted { ($0 % 50, $0) < ($1 % 50, $1) }.map { Int64($0 + 1) }
            #expect(try Self.keys(store, sorted) == expected)
            let sorting = try store.fetchStrategy(sorted)
            #expect(sorting.orderIndex == nil && sorting.indexesBeingBuilt == [["rank"]], "\(sorting)")
            held.runAll()
            #expect(try store.fetchStrategy(sorted).orderIndex == ["rank"])
            #expect(try Self.keys(store, sorted) == expected)
        }
    }

    @Test func aKeyProbeOfAnIndexNotBuiltYetScansAndStartsTheBuild() throws {
        try Self.withHeldStore(rows: 500) { store, held in
            let probe = try Self.request("title == 'n42'")
            let context = ObjectContext(store: store)
            let scanned = try context.performAndWait { try context.fetchObjectIDs(probe).map(\.primaryKey) }
            #expect(scanned == [43])
            #expect(held.count == 1, "the probe did not start the title index's build")
            #expect(try store.fetchStrategy(probe).probedIndex == nil)
            held.runAll()
            #expect(try store.fetchStrategy(probe).probedIndex == ["title"])
            #expect(try context.performAndWait { try context.fetchObjectIDs(probe).map(\.primaryKey) } == [43])
        }
    }

    @Test func smallTablesAndStoresThatDoNotBuildInTheBackgroundBuildOnTheFetchesThread() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let held = HeldBuilds()
        var store = try Self.open(directory, held)
        try Self.insert(store, ranks: 0..<99)
        #expect(try Self.keys(store, try Self.request("rank == 7")) == Self.ranked(7, of: 99))
        #expect(held.count == 0 && store.currentVersion.tables[0].indexes[0].isBuilt, "a table under the threshold went to the background")
        try store.close()

        var options = PersistentStore.Options()
        options.backgroundIndexBuildMinimumRows = 1
        options.indexBuilder = held.builder
        options.buildsIndexesInBackground = false
        store = try PersistentStore.open(at: directory.path, schema: Self.schema, options: options)
        defer { try? store.close() }
        #expect(try store.fetchStrategy(try Self.request("rank == 7")).lookupIndex == ["rank"])
        #expect(held.count == 0)
    }

    @Test func buildIndexesBuildsEveryPendingIndexNow() throws {
        try Self.withHeldStore(rows: 1_000) { store, held in
            let before = store.currentVersion.tables[0].indexes.map(\.isBuilt)
            #expect(before == [false, false])
            try store.buildIndexes()
            let after = store.currentVersion.tables[0].indexes.map(\.isBuilt)
            #expect(after == [true, true])
            #expect(try store.fetchStrategy(try Self.request("title BEGINSWITH 'n99'")).lookupIndex == ["title"])
            #expect(held.count == 0)
        }
    }

    @Test func theLowPriorityBuilderRunsTheBuildOnAThreadOfNiceNineteen() async throws {
        let (nice, stream) = AsyncStream<Int32>.makeStream()
        IndexBuilder.lowPriorityThread.start {
            #if os(Linux)
            stream.yield(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
            #else
            stream.yield(19)
            #endif
            stream.finish()
        }
        var iterator = nice.makeAsyncIterator()
        #expect(await iterator.next() == 19)
        #if os(Linux)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == 0, "the caller's priority changed")
        #endif
    }

    @Test func commitsAndFetchesDuringRealBackgroundBuildsGiveTheRowsOfTheirVersion() throws {
        try Self.withHeldStore(rows: 2_000, realBuilds: true) { store, _ in
            var count = 2_000
            for round in 0..<25 {
                let rank = round % 50
                #expect(try Self.keys(store, try Self.request("rank == \(rank)")) == Self.ranked(rank, of: count), "round \(round)")
                let titles = try Self.keys(store, try Self.request("title BEGINSWITH 'n1'", sortedBy: "rank"))
                #expect(Set(titles) == Set((0..<count).filter { "n\($0)".hasPrefix("n1") }.map { Int64($0 + 1) }), "round \(round)")
                try Self.insert(store, ranks: count..<count + 40)
                count += 40
            }
        }
    }

    @Test func aRealBackgroundBuildFinishesAndIsUsed() throws {
        try Self.withHeldStore(rows: 3_000, realBuilds: true) { store, _ in
            let lookup = try Self.request("rank == 11")
            #expect(try Self.keys(store, lookup) == Self.ranked(11, of: 3_000))
            // Bounded wait: 20 s at most for a build of 3,000 rows.
            var waited = 0
            while !store.currentVersion.tables[0].indexes[0].isBuilt, waited < 2_000 {
                Thread.sleep(forTimeInterval: 0.01)
                waited += 1
            }
            #expect(store.currentVersion.tables[0].indexes[0].isBuilt, "the background build never finished")
            #expect(try store.fetchStrategy(lookup).lookupIndex == ["rank"])
            #expect(try Self.keys(store, lookup) == Self.ranked(11, of: 3_000))
        }
    }
}
