import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Issue 21: a scan with a compiled filter spreads a large table's chunks over the cores
/// (`PersistentStore.Options.scansInParallel`). Whatever the threads do, every fetch, count
/// and batch request must see exactly what one thread sees, in the same order, from the
/// first scan after an open (chunks decoded by whichever thread takes them) onwards.
@Suite struct ParallelScanTests {
    static let rows = 12_345

    /// The same random people in two stores, one scanning on one thread and one splitting
    /// every table of 4 chunks or more, both checkpointed and reopened so that the first
    /// scan decodes the snapshot's chunks.
    static func stores(seed: UInt64) throws -> (serial: StoreFixture, parallel: StoreFixture) {
        var serialOptions = PersistentStore.Options()
        serialOptions.scansInParallel = false
        var parallelOptions = PersistentStore.Options()
        parallelOptions.parallelScanMinimumChunks = 2
        let serial = try StoreFixture(FetchFixtures.schema, options: serialOptions)
        let parallel = try StoreFixture(FetchFixtures.schema, options: parallelOptions)
        var rng = SplitMix64(seed: seed)
        let clustered = seed % 2 == 0
        let people = (0..<rows).map { FetchRandom.personValues($0, clustered: clustered, &rng) }
        for fixture in [serial, parallel] {
            _ = try fixture.store.execute(BatchInsertRequest(entityName: "Person", objects: people))
            try fixture.store.checkpoint()
            try fixture.reopen()
        }
        return (serial, parallel)
    }

    /// What a request gives on a store: its count and its object IDs' keys, in order.
    static func answer(_ store: PersistentStore, _ request: FetchRequest) throws -> (count: Int, keys: [Int64]) {
        let context = ObjectContext(store: store)
        return try context.performAndWait { () throws -> (Int, [Int64]) in
            (try context.count(for: request), try context.fetchObjectIDs(request).map(\.primaryKey))
        }
    }

    @Test func theSplitIsReallyTaken() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let chunks = (Self.rows + EntityTable.chunkRows - 1) / EntityTable.chunkRows
        #expect(ParallelChunks.threads(chunks: chunks, parallel: true, minimumPerThread: 2) == min(cores, chunks / 2))
        #expect(ParallelChunks.threads(chunks: chunks, parallel: false, minimumPerThread: 2) == 1)
        #expect(ParallelChunks.threads(chunks: 3, parallel: true, minimumPerThread: 2) == 1)
        // The results come back in index order, whichever thread computed each.
        #expect(ParallelChunks.map(1_000, threads: 4) { $0 * 3 } == (0..<1_000).map { $0 * 3 })
    }

    @Test(arguments: [UInt64(1), 2, 3, 4]) func everyRequestSeesWhatOneThreadSees(seed: UInt64) throws {
        let (serial, parallel) = try Self.stores(seed: seed)
        defer { serial.remove(); parallel.remove() }
        var rng = SplitMix64(seed: seed &* 7_919)
        for round in 0..<30 {
            let request = FetchRandom.request(&rng, scale: Int64(Self.rows / 8), rows: Self.rows)
            let one = try Self.answer(serial.store, request)
            let split = try Self.answer(parallel.store, request)
            #expect(split.count == one.count, "round \(round): count, \(request.predicate.map { "\($0)" } ?? "no predicate")")
            #expect(split.keys == one.keys, "round \(round): IDs, \(request.predicate.map { "\($0)" } ?? "no predicate")")
        }
        // A batch request works on the keys the scan found: the same rows go.
        let doomed = try FetchRequest("Person", "age < 200 OR score > 100.5").predicate
        for fixture in [serial, parallel] {
            _ = try fixture.store.execute(BatchDeleteRequest(entityName: "Person", predicate: doomed))
        }
        let everyone = FetchRequest(entityName: "Person")
        #expect(try Self.answer(parallel.store, everyone).keys == Self.answer(serial.store, everyone).keys)
    }

    /// The first batch requests after an open decode the chunks they rewrite on every core
    /// first (`PersistentStore.decodeInParallel`): every row must end as one thread leaves it.
    /// The first fetch of objects after an open decodes the chunks its objects are in on
    /// every core before making them (`decodeInParallel(_:at:)`): the objects and their
    /// values are those one thread gives, in the same order.
    @Test(arguments: [UInt64(5), 6]) func theFirstObjectFetchAfterAnOpenDecodesItsChunksOnEveryCore(seed: UInt64) throws {
        let (serial, parallel) = try Self.stores(seed: seed)
        defer { serial.remove(); parallel.remove() }
        func values(_ store: PersistentStore) throws -> [String] {
            let context = ObjectContext(store: store)
            let request = FetchRequest(entityName: "Person", sortKeys: [SortKey("age", ascending: false)])
            return try context.performAndWait {
                try context.fetch(request).map { person in
                    "\(person.objectID.primaryKey) \(try person.value(forKey: "name")) \(try person.value(forKey: "age"))"
                }
            }
        }
        let expected = try values(serial.store)
        let table = parallel.store.currentVersion.tables[parallel.store.layoutIndex["Person"]!]
        #expect(table.chunks.allSatisfy { $0.decoded.load() == nil }, "the reopen decoded chunks")
        #expect(try values(parallel.store) == expected)
        #expect(table.chunks.allSatisfy { $0.decoded.load() != nil })
    }

    @Test func batchRequestsAfterAnOpenRewriteTheSameRows() throws {
        let (serial, parallel) = try Self.stores(seed: 6)
        defer { serial.remove(); parallel.remove() }
        func everything(_ fixture: StoreFixture) -> [String] { TailAppendTests.contents(fixture.store.currentVersion, 0) }
        let steps: [(PersistentStore) throws -> Void] = [
            { _ = try $0.execute(BatchUpdateRequest(entityName: "Person", propertiesToUpdate: ["size": .constant(.int(2))])) },
            { _ = try $0.execute(BatchUpdateRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age > 50"),
                                                    propertiesToUpdate: ["active": .constant(.bool(true))])) },
            { store in
                let ids = stride(from: 3, through: Self.rows, by: 3).map { ObjectID(storeID: store.storeID, entityName: "Person", primaryKey: Int64($0)) }
                _ = try store.execute(BatchDeleteRequest(objectIDs: ids))
            },
            { _ = try $0.execute(BatchDeleteRequest(entityName: "Person", predicate: try ObjectPredicate(format: "score < 10"))) },
        ]
        for (n, step) in steps.enumerated() {
            for fixture in [serial, parallel] {
                // From a snapshot, so that the step finds its chunks undecoded.
                try fixture.store.checkpoint()
                try fixture.reopen()
                try step(fixture.store)
            }
            #expect(everything(parallel) == everything(serial), "step \(n)")
        }
    }

    @Test func progressIsReportedChunkByChunkInOrderAndAStopStops() throws {
        let (serial, parallel) = try Self.stores(seed: 5)
        defer { serial.remove(); parallel.remove() }
        let store = parallel.store
        let request = try FetchRequest("Person", "age >= 0")
        let plan = try FetchPlan(request, store: store)
        let version = store.currentVersion
        let sizes = version.tables[plan.layout.index].chunks.map(\.count)
        var reports: [ScanProgress] = []
        let items = plan.scan(version) { reports.append($0); return true }
        #expect(reports.map(\.scanned) == sizes.indices.map { sizes[...$0].reduce(0, +) })
        #expect(reports.last?.matches == items?.count)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.matches <= $1.matches })
        #expect(items?.map(\.primaryKey) == (try Self.answer(serial.store, request)).keys)
        var calls = 0
        #expect(plan.scan(version) { _ in calls += 1; return calls < 3 } == nil)
        #expect(calls == 3)
    }
}
