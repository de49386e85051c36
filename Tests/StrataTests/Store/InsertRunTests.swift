import Testing
@testable import Strata

/// `Changeset.Inserts` as a run: a batch insert's rows, one flat array of values with
/// consecutive keys, read, logged and applied exactly as the same rows listed one by one.
@Suite struct InsertRunTests {
    /// `count` rows from key `first` as a run, and the same rows as a list.
    static func both(first: Int64, count: Int) -> (run: Changeset.Inserts, list: Changeset.Inserts) {
        let keys = (0..<count).map { first + Int64($0) }
        let list = BulkInsertTests.inserts(keys)
        let flat = keys.flatMap(BulkInsertTests.row)
        let width = BulkInsertTests.row(first).count
        return (Changeset.Inserts(first: first, count: count, width: width, values: flat), Changeset.Inserts(list))
    }

    @Test func aRunReadsAsItsRowsListed() {
        let (run, list) = Self.both(first: 41, count: 7)
        #expect(run.count == 7)
        #expect(run.map(\.primaryKey) == list.map(\.primaryKey))
        #expect(run.map(\.values) == list.map(\.values))
        #expect(run.primaryKeys == Array(41...47))
        #expect(run.largestKey == 47 && list.largestKey == 47)
        #expect(run.consecutiveKeys?.first == 41 && run.consecutiveKeys?.count == 7)
        #expect(list.consecutiveKeys == nil)
        for row in 0..<7 {
            #expect(run.primaryKey(at: row) == list.primaryKey(at: row))
            for property in 0..<4 { #expect(run.value(property, ofRow: row) == list.value(property, ofRow: row)) }
        }
        #expect(PersistentStore.keyRanges(run) == PersistentStore.keyRanges(list))
        #expect(TableEditor.keyOrder(run) == Array(0..<7))
        #expect(Changeset.Inserts(first: 1, count: 0, width: 4, values: []).largestKey == .min)
    }

    /// Changing a run turns it into a list of the same rows, changed.
    @Test func changingARunListsItsRows() {
        var (run, list) = Self.both(first: 1, count: 3)
        run.append(.init(primaryKey: 10, values: BulkInsertTests.row(10)))
        list.append(.init(primaryKey: 10, values: BulkInsertTests.row(10)))
        #expect(run.consecutiveKeys == nil)
        #expect(run.map(\.primaryKey) == [1, 2, 3, 10])
        #expect(run.map(\.values) == list.map(\.values))
        var other = Self.both(first: 1, count: 3).run
        other[1].primaryKey = 20
        #expect(other.map(\.primaryKey) == [1, 20, 3])
        #expect(other.consecutiveKeys == nil)
    }

    /// The log record of a run is byte for byte that of its rows listed (the format does not
    /// know runs), and replaying it gives the listed rows back.
    @Test(arguments: [1, 1_000, 3_000]) func aRunIsLoggedAsItsRowsListed(count: Int) throws {
        let (run, list) = Self.both(first: 5, count: count)
        try Self.expectLoggedAsListed(run, list)
    }

    /// Expects the log record of `inserts` to be byte for byte that of `list` (the same rows
    /// listed one by one), and decoding it to give `list`'s rows back.
    static func expectLoggedAsListed(_ inserts: Changeset.Inserts, _ list: Changeset.Inserts,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        var a = Changeset(), b = Changeset()
        a.entities[0] = Changeset.EntityChanges(inserts: inserts)
        b.entities[0] = Changeset.EntityChanges(inserts: list)
        let payload = ChangesetCodec.encode(a)
        #expect(payload == ChangesetCodec.encode(b), sourceLocation: sourceLocation)
        let layout = EntityLayout(entity: BulkInsertTests.schema.entities[0], index: 0, schema: BulkInsertTests.schema)
        let decoded = try #require(try ChangesetCodec.decode(payload, layouts: [layout]).entities[0]?.inserts, sourceLocation: sourceLocation)
        #expect(decoded.map(\.primaryKey) == list.map(\.primaryKey), sourceLocation: sourceLocation)
        #expect(decoded.map(\.values) == list.map(\.values), sourceLocation: sourceLocation)
    }

    /// A run applied to a table (empty, or ending in partly filled chunks) leaves the chunks,
    /// values, versions and next keys that its rows listed leave.
    @Test(arguments: [0, 700]) func aRunIsAppliedAsItsRowsListed(before: Int) throws {
        let layout = EntityLayout(entity: BulkInsertTests.schema.entities[0], index: 0, schema: BulkInsertTests.schema)
        var start = TableEditor(table: EntityTable(layout: layout))
        if before > 0 {
            try start.apply(.init(inserts: BulkInsertTests.inserts((1...Int64(before)).map { $0 })), version: 1)
        }
        let (run, list) = Self.both(first: Int64(before) + 1, count: 2_500)
        var tables: [EntityTable] = []
        var nextKeys: [[Int64]] = []
        for inserts in [run, list] {
            var version = StoreVersion(lsn: 1, tables: [start.table])
            var keys: [Int64] = [Int64(before) + 1]
            var changes = Changeset()
            changes.entities[0] = Changeset.EntityChanges(inserts: inserts)
            try PersistentStore.apply(changes, to: &version, lsn: 2, nextKeys: &keys)
            tables.append(version.tables[0])
            nextKeys.append(keys)
        }
        #expect(nextKeys[0] == nextKeys[1] && nextKeys[0] == [Int64(before) + 2_501])
        let (a, b) = (tables[0], tables[1])
        #expect(a.rowCount == b.rowCount && a.rowCount == before + 2_500)
        #expect(a.chunkFirstKeys == b.chunkFirstKeys)
        #expect(a.chunks.map(\.count) == b.chunks.map(\.count))
        for c in a.chunks.indices {
            #expect(a.chunks[c].primaryKeys == b.chunks[c].primaryKeys)
            #expect(a.chunks[c].versions == b.chunks[c].versions)
            for row in 0..<a.chunks[c].count {
                for property in layout.properties.indices {
                    #expect(a.value(property, at: (c, row)) == b.value(property, at: (c, row)), "chunk \(c), row \(row)")
                }
            }
        }
    }
}
