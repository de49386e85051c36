import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// A migrating open maps the chunks of the snapshot it opened without decoding them: each
/// gets the mapping its first read applies (`ChunkColumnMapping`) and statistics mapped from
/// its footer. What every read returns must be what mapping decoded chunks gives (the same
/// rows migrated from the log, whose chunks are built in memory), through further batch
/// deletes, a second migration on top of the first, log replay and a checkpoint.
@Suite struct LazyMigrationTests {
    static let rows = LazyChunkDecodeTests.rows
    static let options = PersistentStore.Options.unsyncedWithoutCheckpoints

    /// `count` widened to a required `double` (its nils become -1), `note` required (its nils
    /// become "none"), and two attributes added: `rank` (7 in every row) and `label` (nil).
    static let second = try! Schema {
        Entity("Item") {
            Attribute("name", .string)
            Attribute("note", .string, default: .string("none"))
            Attribute("count", .double, default: .double(-1))
            Attribute("done", .bool, default: false)
            Attribute("rank", .int64, default: .int(7))
            Attribute("label", .string, optional: true)
        }
    }

    /// On top of ``second``: `done` removed, `rank` renamed `priority`, `label` required (its
    /// nils, every row, become "x"), `weight` added.
    static let third = try! Schema {
        Entity("Item") {
            Attribute("name", .string)
            Attribute("note", .string, default: .string("none"))
            Attribute("count", .double, default: .double(-1))
            Attribute("priority", .int64, default: .int(7), originalName: "rank")
            Attribute("label", .string, default: .string("x"))
            Attribute("weight", .double, default: .double(0.25))
        }
    }

    static let secondPredicates = ["count < 0", "count > 4000.5", "count >= 2000 AND count < 2600", "rank == 7", "rank > 7",
                                   "note == 'none'", "label == nil", "done == true", "name BEGINSWITH 'item 49'"]
    static let thirdPredicates = ["count < 0", "count >= 2000 AND count < 2600", "priority == 7", "priority < 7",
                                  "weight < 0.3", "weight > 0.3", "label == 'x'", "note == 'none'"]

    /// Two stores of the same ``LazyChunkDecodeTests`` rows: `lazy` checkpointed (its chunks
    /// come from the snapshot, undecoded), `eager` not (its chunks are replayed from the log,
    /// decoded). Both closed.
    static func twins() throws -> (lazy: TemporaryDirectory, eager: TemporaryDirectory) {
        let (lazy, _) = try LazyChunkDecodeTests.reopenedFromSnapshot()
        try lazy.store.close()
        let eager = try TemporaryDirectory()
        let store = try PersistentStore.open(at: eager.path, schema: TailAppendTests.schema, options: options)
        _ = try store.execute(BatchInsertRequest(entityName: "Item", objects: LazyChunkDecodeTests.objects()))
        try store.close()
        return (lazy.directory, eager)
    }

    /// Every row's key and values, in key order.
    static func rows(_ store: PersistentStore) -> [String] {
        TailAppendTests.contents(store.currentVersion, 0).map { String($0[..<$0.firstIndex(of: "@")!]) + String($0[$0.firstIndex(of: ":")!...]) }
    }

    /// Counts of `predicates` through a context, which checks the store's damage.
    static func counts(_ store: PersistentStore, _ predicates: [String]) throws -> [Int] {
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            try predicates.map { try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: $0))) }
        }
    }

    static func delete(_ keys: [Int64], from store: PersistentStore) throws {
        _ = try store.execute(BatchDeleteRequest(objectIDs: keys.map { ObjectID(storeID: store.storeID, entityName: "Item", primaryKey: $0) }))
    }

    @Test func aMigratingOpenDecodesNothingAndReadsAsAnEagerMigration() throws {
        let (lazyDirectory, eagerDirectory) = try Self.twins()
        defer { lazyDirectory.remove(); eagerDirectory.remove() }
        func open(_ directory: TemporaryDirectory, _ schema: Schema) throws -> PersistentStore {
            try PersistentStore.open(at: directory.path, schema: schema, options: Self.options)
        }

        // The migrating open reads no chunk; statistics mapped from the footers still skip.
        var lazy = try open(lazyDirectory, Self.second)
        var eager = try open(eagerDirectory, Self.second)
        let table = lazy.currentVersion.tables[0]
        #expect(table.chunks.count > 4)
        #expect(LazyChunkDecodeTests.undecoded(table) == table.chunks.count, "the migrating open decoded a chunk")
        let high = try Self.counts(lazy, ["count >= 4900"])
        #expect(high == [(4_900...Self.rows).filter { $0 % 3 != 0 }.count])
        #expect(LazyChunkDecodeTests.undecoded(table) == table.chunks.count - 1, "the mapped statistics skip the other chunks")
        #expect(try Self.counts(lazy, Self.secondPredicates) == Self.counts(eager, Self.secondPredicates))
        #expect(try Self.counts(lazy, ["count < 0", "rank == 7", "label == nil"]) == [Self.rows / 3, Self.rows, Self.rows])
        #expect(Self.rows(lazy) == Self.rows(eager))

        // Replayed from the log, the migration maps the chunks again without reading them;
        // batch deletes then decode their keys alone.
        try lazy.close()
        lazy = try open(lazyDirectory, Self.second)
        #expect(LazyChunkDecodeTests.undecoded(lazy.currentVersion.tables[0]) == lazy.currentVersion.tables[0].chunks.count)
        let deleted = (1...Int64(Self.rows)).filter { $0 % 4 == 1 || ($0 > 3_000 && $0 <= 3_700) }
        try Self.delete(deleted, from: lazy)
        try Self.delete(deleted, from: eager)
        for chunk in lazy.currentVersion.tables[0].chunks {
            #expect(chunk.decoded.load() == nil, "a batch delete decoded a mapped chunk whole")
        }
        #expect(try Self.counts(lazy, Self.secondPredicates) == Self.counts(eager, Self.secondPredicates))
        #expect(Self.rows(lazy) == Self.rows(eager))
        try lazy.close()
        try eager.close()

        // A second migration on the first (replayed, with the delete after it, whose key
        // columns it maps as decoded): still nothing decoded whole, the same rows.
        lazy = try open(lazyDirectory, Self.third)
        eager = try open(eagerDirectory, Self.third)
        for chunk in lazy.currentVersion.tables[0].chunks {
            #expect(chunk.decoded.load() == nil, "the second migration decoded a chunk")
            #expect([[], [EntityLayout.primaryKeyColumn]].contains(LazyChunkDecodeTests.columnsDecodedAlone(chunk)))
        }
        #expect(try Self.counts(lazy, Self.thirdPredicates) == Self.counts(eager, Self.thirdPredicates))
        let left = Self.rows - deleted.count
        #expect(try Self.counts(lazy, ["priority == 7", "label == 'x'", "weight < 0.3"]) == [left, left, left])
        #expect(Self.rows(lazy) == Self.rows(eager))
        #expect(Self.rows(lazy).count == left)

        // A checkpoint writes the mapped columns; the snapshot reopens to the same rows.
        try lazy.checkpoint()
        try lazy.close()
        lazy = try open(lazyDirectory, Self.third)
        #expect(Self.rows(lazy) == Self.rows(eager))
        #expect(try Self.counts(lazy, Self.thirdPredicates) == Self.counts(eager, Self.thirdPredicates))
        try lazy.close()
        try eager.close()
    }
}
