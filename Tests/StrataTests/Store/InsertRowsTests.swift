import Testing
@testable import Strata

/// `Changeset.Inserts` as keys and rows side by side (what a save and a replay build, one
/// row appended at a time): read, changed, logged and applied exactly as the same rows
/// listed as `Insert`s.
@Suite struct InsertRowsTests {
    /// The rows of `keys`, appended one by one to empty inserts, and the same rows as a list.
    static func both(_ keys: [Int64]) -> (rows: Changeset.Inserts, list: Changeset.Inserts) {
        var rows = Changeset.Inserts()
        rows.reserveCapacity(keys.count)
        for key in keys { rows.append(primaryKey: key, values: BulkInsertTests.row(key)) }
        return (rows, Changeset.Inserts(BulkInsertTests.inserts(keys)))
    }

    @Test func appendedRowsReadAsTheirRowsListed() {
        let keys: [Int64] = [9, 3, 12, 4]
        let (rows, list) = Self.both(keys)
        #expect(rows.count == 4)
        #expect(rows.map(\.primaryKey) == keys)
        #expect(rows.map(\.values) == list.map(\.values))
        #expect(rows.primaryKeys == keys)
        #expect(rows.largestKey == 12 && Changeset.Inserts().largestKey == .min)
        #expect(rows.consecutiveKeys == nil && rows.run == nil)
        for row in keys.indices {
            #expect(rows.primaryKey(at: row) == keys[row])
            for property in 0..<4 { #expect(rows.value(property, ofRow: row) == list.value(property, ofRow: row)) }
        }
        #expect(TableEditor.keyOrder(rows) == TableEditor.keyOrder(list))
        #expect(PersistentStore.keyRanges(rows) == PersistentStore.keyRanges(list))
    }

    /// A row appended from a run (whose values are a view of the run's flat array) keeps
    /// its own values only, and setting a row replaces its key and values.
    @Test func rowsTakeOnlyTheirOwnValues() {
        let run = InsertRunTests.both(first: 20, count: 3).run
        var (rows, _) = Self.both([1, 2])
        rows.append(run[1])
        #expect(rows.map(\.primaryKey) == [1, 2, 21])
        #expect(Array(rows[2].values) == BulkInsertTests.row(21))
        #expect(rows.value(3, ofRow: 2) == BulkInsertTests.row(21)[3])
        rows[0] = run[2]
        #expect(rows.map(\.primaryKey) == [22, 2, 21])
        #expect(rows.map { Array($0.values) } == [BulkInsertTests.row(22), BulkInsertTests.row(2), BulkInsertTests.row(21)])
        #expect(rows.value(0, ofRow: 0) == BulkInsertTests.row(22)[0])
    }

    /// The log record of appended rows is byte for byte that of the same rows listed, and
    /// decoding it (which appends its rows one by one) gives them back.
    @Test(arguments: [1, 1_000]) func appendedRowsAreLoggedAsTheirRowsListed(count: Int) throws {
        let (rows, list) = Self.both((0..<count).map { 7 + Int64($0) })
        try InsertRunTests.expectLoggedAsListed(rows, list)
    }

    /// Rows appended in key order or out of it, applied to a table ending in a partly filled
    /// chunk, leave what the same rows listed leave.
    @Test(arguments: [false, true]) func appendedRowsAreAppliedAsTheirRowsListed(shuffled: Bool) throws {
        let layout = EntityLayout(entity: BulkInsertTests.schema.entities[0], index: 0, schema: BulkInsertTests.schema)
        var start = TableEditor(table: EntityTable(layout: layout))
        try start.apply(.init(inserts: BulkInsertTests.inserts((1...700).map { $0 })), version: 1)
        var keys = (701...3_200).map { Int64($0) }
        if shuffled { keys.swapAt(10, 2_000) }
        let (rows, list) = Self.both(keys)
        var tables: [EntityTable] = []
        for inserts in [rows, list] {
            var editor = start
            try editor.apply(Changeset.EntityChanges(inserts: inserts), version: 2)
            tables.append(editor.table)
        }
        let (a, b) = (tables[0], tables[1])
        #expect(a.rowCount == 3_200 && b.rowCount == 3_200)
        #expect(a.chunkFirstKeys == b.chunkFirstKeys)
        for c in a.chunks.indices {
            #expect(a.chunks[c].primaryKeys == b.chunks[c].primaryKeys)
            #expect(a.chunks[c].primaryKeys == a.chunks[c].primaryKeys.sorted())
            for row in 0..<a.chunks[c].count {
                for property in layout.properties.indices {
                    #expect(a.value(property, at: (c, row)) == b.value(property, at: (c, row)), "chunk \(c), row \(row)")
                }
            }
        }
    }

    @Test func keysAscendOnlyWhenEachIsAboveTheOneBefore() {
        func ascend(_ keys: [Int64]) -> Bool { TableEditor.keysAscend(Self.both(keys).rows) }
        #expect(ascend([]) && ascend([5]) && ascend([1, 2, 9]) && ascend([.min, 0, .max]))
        #expect(!ascend([2, 1]) && !ascend([1, 1, 2]) && !ascend([1, 3, 2]))
    }
}
