import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A save's inserts arrive in any order (a context hands them over in hash order): they land
/// in the table in key order, column by column, and the store's change reports exactly
/// their IDs, however their keys are spread.
@Suite struct BulkInsertTests {
    static let schema = TailAppendTests.schema

    /// Item `key`'s values: `note` and `count` null for some keys, `name` never.
    static func row(_ key: Int64) -> [AttributeValue] {
        [.string("item \(key)"), key % 5 == 0 ? .string("note \(key)") : .null, key % 3 == 0 ? .null : .int(key),
         .bool(key % 2 == 0)]
    }

    static func inserts(_ keys: [Int64]) -> [Changeset.Insert] {
        keys.map { .init(primaryKey: $0, values: row($0)) }
    }

    @Test(arguments: [1, 2, 3, 42]) func keyOrderIsAStableSortByKey(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for shape in 0..<5 {
            let count = Int.random(in: 0...300, using: &random)
            var keys: [Int64]
            switch shape {
            case 0: keys = (0..<count).map { 100 + Int64($0) }                              // ascending
            case 1: keys = (0..<count).map { 100 + Int64($0) }.shuffled(using: &random)     // dense
            case 2: keys = Array((0..<(count * 3 / 2)).map { 100 + Int64($0) }.shuffled(using: &random).prefix(count))
            case 3: keys = (0..<count).map { _ in Int64.random(in: 1...10_000_000, using: &random) }
            default: keys = (0..<count).map { _ in Int64.random(in: 1...Int64(max(1, count / 2)), using: &random) }
            }
            let expected = keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }
            #expect(TableEditor.keyOrder(Changeset.Inserts(Self.inserts(keys))) == expected, "seed \(seed), shape \(shape)")
        }
        let extremes: [Int64] = [.max, 1, .min, 0, .max]
        #expect(TableEditor.keyOrder(Changeset.Inserts(Self.inserts(extremes))) == [2, 3, 1, 0, 4])
    }

    @Test(arguments: [1, 2, 3]) func insertsInAnyOrderLandInKeyOrder(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let layout = EntityLayout(entity: Self.schema.entities[0], index: 0, schema: Self.schema)
        var editor = TableEditor(table: EntityTable(layout: layout))
        var model: [Int64: (values: [AttributeValue], version: UInt64)] = [:]
        var next: Int64 = 1
        var gaps: [Int64] = []
        var version: UInt64 = 0
        func check() {
            let table = editor.table
            var rows: [Int64] = []
            for (c, chunk) in table.chunks.enumerated() {
                // A column without a null row has no validity map.
                #expect(chunk.columns[layout.properties[0].column].validity == nil, "seed \(seed)")
                for row in 0..<chunk.count {
                    let key = chunk.primaryKeys[row]
                    rows.append(key)
                    let values = layout.properties.indices.map { table.value($0, at: (c, row)) }
                    #expect(values == model[key]?.values, "seed \(seed), key \(key)")
                    #expect(UInt64(chunk.versions[row]) == model[key]?.version, "seed \(seed), key \(key)")
                }
            }
            #expect(rows == model.keys.sorted(), "seed \(seed)")
            #expect(table.rowCount == model.count)
            #expect(table.chunkFirstKeys == table.chunks.map(\.firstKey))
        }
        // Saves of sizes that cross chunk boundaries, at the end of the table: keys allocated
        // together (dense) or every third one (leaving gaps), shuffled.
        for save in 0..<10 {
            let size = [1, 3, 700, 2_500, 5][save % 5]
            let step: Int64 = save % 3 == 2 ? 3 : 1
            var keys = (0..<size).map { next + Int64($0) * step }
            if step > 1 { gaps += keys.map { $0 + 1 } }
            next = keys[keys.count - 1] + step
            keys.shuffle(using: &random)
            version += 1
            try editor.apply(.init(inserts: Self.inserts(keys)), version: version)
            for key in keys { model[key] = (Self.row(key), version) }
            check()
        }
        // Keys below the tail go row by row into their chunks.
        let middle = Array(gaps.shuffled(using: &random).prefix(300))
        version += 1
        try editor.apply(.init(inserts: Self.inserts(middle)), version: version)
        for key in middle { model[key] = (Self.row(key), version) }
        check()
    }

    @Test func aSaveReportsEveryInsertedID() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: Self.schema, options: .unsyncedWithoutCheckpoints)
        defer { try? store.close() }
        let table = store.layoutIndex["Item"]!
        let observed = LockedBox<StoreChange?>(nil)
        let token = store.observeChanges { observed.set($0) }
        defer { token.cancel() }
        var random = SplitMix64(seed: 7)
        let dense = store.allocatePrimaryKeys(entity: table, count: 500)
        let few = store.allocatePrimaryKeys(entity: table, count: 3)
        let cases: [[Int64]] = [
            Array(dense).shuffled(using: &random),                                      // one range
            Array(few).shuffled(using: &random),                                        // a small save
            (0..<200).map { 10_000 + 7 * Int64($0) }.shuffled(using: &random),          // sparse
            (0..<100).map { 20_000 + Int64($0) } + (0..<100).map { 30_000 + Int64($0) }, // two ranges
        ]
        for keys in cases {
            var changes = Changeset()
            changes.entities[table] = .init(inserts: Self.inserts(keys))
            let (_, change) = try store.commit(changes)
            let expected = Set(keys.map { ObjectID(storeID: store.storeID, entityName: "Item", primaryKey: $0) })
            #expect(change.inserted == expected)
            #expect(change.insertedIDs.count == keys.count)
            #expect(change.updated.isEmpty && change.deleted.isEmpty)
            #expect(observed.get() == change)
        }
        try store.checkInvariants()
    }
}
