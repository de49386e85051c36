import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A single-number index is built from the columns straight (``TableIndex/numberLeaves(of:in:)``:
/// flat value–key pairs gathered chunk by chunk, radix sorted, cut into compact leaves). Its
/// entries must be those of the general path exactly: every row's entry sorted by
/// ``IndexEntry/precedes(_:_:)`` (nils first, values, then ascending key; -0.0 equal to 0.0),
/// for integers, negative ones too, doubles, dates and to-one keys, over chunks with nulls
/// and chunks without, decoded in memory or read back from a snapshot, and for a table with no
/// row or a single value. The general path (strings, booleans, compound indexes) must give
/// the same order too.
@Suite struct NumberIndexBuildTests {
    /// Every row's entry for `properties` of `table`, in index order by comparison.
    static func compared(_ properties: [Int], _ table: borrowing EntityTable) -> [IndexEntry] {
        let access = properties.map { table.layout.columnAccess[$0] }
        var entries: [IndexEntry] = []
        for chunk in table.chunks {
            let keys = chunk.primaryKeys
            for row in keys.indices { entries.append(TableIndex.entry(chunk, row, keys[row], access)) }
        }
        return entries.sorted(by: IndexEntry.precedes)
    }

    /// Builds the index of each of `names` over `entity`'s table in `store` and checks it
    /// against ``compared(_:_:)``, and that its leaves past the nils are compact (the
    /// number path built them).
    static func check(_ store: PersistentStore, _ entity: String, _ names: [String], _ label: String, compact: Bool = true,
                      threads: Int = 1) {
        let version = store.currentVersion
        guard let table = version.tables.first(where: { $0.layout.entity.name == entity }) else {
            Issue.record("no table \(entity)")
            return
        }
        for name in names {
            let properties = name.split(separator: ",").map { table.layout.propertyIndex[String($0)]! }
            let built = TableIndex(properties: properties, table: table, threads: threads)
            let got = built.leaves.flatMap(\.entries), expected = compared(properties, table)
            #expect(got.count == expected.count && built.count == expected.count, "\(label) \(name): \(got.count) vs \(expected.count) entries")
            #expect(zip(got, expected).allSatisfy { IndexEntry.same($0, $1) }, "\(label) \(name): entries differ")
            // Each value as stored (-0.0 stays -0.0).
            #expect(zip(got, expected).allSatisfy { identical($0.first, $1.first) && $0.rest == $1.rest }, "\(label) \(name): values differ")
            let compactLeaves = built.leaves.drop { $0.entries.allSatisfy { $0.first == .null } }.allSatisfy {
                if case .entries = $0.values { return false }
                return true
            }
            if compact { #expect(compactLeaves, "\(label) \(name): not built by the number path") }
            #expect(built.lastEntries.count == built.leaves.count)
        }
    }

    /// Whether `a` and `b` are the same value, a double's sign of zero included.
    static func identical(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
        return a == b
    }

    /// A person whose every number is set (so a chunk of them has no nulls), with negative
    /// ages, signed zeros and dates on both sides of the reference date.
    static func fullPerson(_ i: Int, _ rng: inout SplitMix64) -> [String: AttributeValue] {
        ["name": .string("p\(i)"),
         "age": .int(Int64(rng.next() % 400) - 100),
         "score": .double([0.0, -0.0, 2.5, -7.25, 1e300, -.infinity][Int(rng.next() % 6)]),
         "born": .date(FetchFixtures.day(Double(Int(rng.next() % 4_000) - 2_000) / 2)),
         "size": .int(Int64(rng.next() % 7) - 3)]
    }

    @Test func matchesTheComparisonOrderOverChunksWithAndWithoutNulls() throws {
        let directory = try TemporaryDirectory(prefix: "strata-number-index")
        defer { directory.remove() }
        let names = ["age", "score", "born", "size", "team"]
        // The general path (every row's ``IndexEntry``, then a comparison sort):
        // strings, booleans, compound indexes.
        let others = ["name", "nickname", "active", "nickname,age", "active,score", "name,born"]
        var store = try PersistentStore.open(at: directory.path, schema: FetchFixtures.schema, options: .unsyncedWithoutCheckpoints)
        var rng = SplitMix64(seed: 20)
        // Random people (nulls among the optional numbers, teams), then a run with no null.
        let context = ObjectContext(store: store, name: "populate")
        _ = try context.performAndWait { try FetchRandom.populate(context, people: 1_500, pets: 10, clustered: false, &rng) }
        _ = try store.execute(BatchInsertRequest(entityName: "Person", objects: (0..<2_500).map { Self.fullPerson($0, &rng) }))
        Self.check(store, "Person", names, "in memory")
        Self.check(store, "Person", others, "in memory", compact: false)
        _ = try store.checkpoint()
        try store.close()
        store = try PersistentStore.open(at: directory.path, schema: FetchFixtures.schema, options: .unsyncedWithoutCheckpoints)
        defer { try? store.close() }
        Self.check(store, "Person", names, "from the snapshot")
        Self.check(store, "Person", others, "from the snapshot", compact: false)
        // Read back, a chunk decoded whole and the others not.
        _ = try store.fetchRows(FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "name == 'p5'")))
        Self.check(store, "Person", names, "after a read")
        Self.check(store, "Person", others, "after a read", compact: false)
    }

    @Test func chunksDecodedOnSeveralThreadsFirstGiveTheSameIndex() throws {
        let directory = try TemporaryDirectory(prefix: "strata-number-index")
        defer { directory.remove() }
        var store = try PersistentStore.open(at: directory.path, schema: FetchFixtures.schema, options: .unsyncedWithoutCheckpoints)
        var rng = SplitMix64(seed: 21)
        let context = ObjectContext(store: store, name: "populate")
        _ = try context.performAndWait { try FetchRandom.populate(context, people: 3_000, pets: 10, clustered: false, &rng) }
        _ = try store.execute(BatchInsertRequest(entityName: "Person", objects: (0..<3_000).map { Self.fullPerson($0, &rng) }))
        _ = try store.checkpoint()
        // Each list of indexes on a store just opened, so that every chunk waits for a decode.
        for names in [["age"], ["born", "score"], ["team"], ["name"], ["nickname,age"]] {
            try store.close()
            store = try PersistentStore.open(at: directory.path, schema: FetchFixtures.schema, options: .unsyncedWithoutCheckpoints)
            let chunks = store.currentVersion.tables.first { $0.layout.entity.name == "Person" }!.chunks
            #expect(chunks.count > 2 && chunks.allSatisfy { $0.decoded.load() == nil })
            Self.check(store, "Person", names, "on 2 threads", compact: names != ["name"] && names != ["nickname,age"], threads: 2)
        }
        try store.close()
    }

    @Test func anEmptyTableAndASingleValue() throws {
        let directory = try TemporaryDirectory(prefix: "strata-number-index")
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: FetchFixtures.schema, options: .unsyncedWithoutCheckpoints)
        defer { try? store.close() }
        Self.check(store, "Person", ["age", "score", "born", "team"], "empty")
        _ = try store.execute(BatchInsertRequest(entityName: "Person", objects: (0..<3_000).map {
            ["name": .string("p\($0)"), "age": .int(-4), "score": .double($0 % 2 == 0 ? 0.0 : -0.0),
             "born": .date(FetchFixtures.day(3))]
        }))
        Self.check(store, "Person", ["age", "score", "born", "team"], "one value")
        _ = try store.execute(BatchInsertRequest(entityName: "Person", objects: [["name": "one"]]))
        Self.check(store, "Person", ["age", "score", "born", "team"], "one value and a null")
    }

    @Test func aNaNTakesTheGeneralPath() throws {
        let directory = try TemporaryDirectory(prefix: "strata-number-index")
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: FetchFixtures.schema, options: .unsyncedWithoutCheckpoints)
        defer { try? store.close() }
        _ = try store.execute(BatchInsertRequest(entityName: "Person", objects: (0..<100).map {
            ["name": .string("p\($0)"), "score": .double($0 == 50 ? .nan : Double($0 % 9))]
        }))
        let table = store.currentVersion.tables.first { $0.layout.entity.name == "Person" }!
        let access = table.layout.columnAccess[table.layout.propertyIndex["score"]!]
        #expect(TableIndex.numberLeaves(of: access, in: table.chunks) == nil)
    }
}
