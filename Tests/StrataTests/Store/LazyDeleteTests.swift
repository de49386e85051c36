import Foundation
import Testing
import StrataTestSupport
import StrataStorage
@testable import Strata

/// Issue 21: a batch delete of rows of chunks loaded from a snapshot decodes their key
/// columns only; the other columns are decoded without the deleted rows when first read. What
/// every read returns must be what deleting from decoded chunks gives, through further
/// deletes, checkpoints and log replay.
@Suite struct LazyDeleteTests {
    typealias Fixture = LazyChunkDecodeTests

    /// The key of a row of `TailAppendTests.contents`.
    static func key(_ line: String) -> Int64 { Int64(line.prefix { $0 != "@" })! }

    static func delete(_ keys: [Int64], from store: PersistentStore) throws {
        let ids = keys.map { ObjectID(storeID: store.storeID, entityName: "Item", primaryKey: $0) }
        _ = try store.execute(BatchDeleteRequest(objectIDs: ids))
    }

    static let predicates = ["count <= 100", "count > 4000", "count >= 2000 AND count < 2600", "count == nil",
                             "note != nil", "done == true", "name BEGINSWITH 'item 49'"]

    /// Counts of `predicates` through a context, which checks the store's damage.
    static func counts(_ store: PersistentStore) throws -> [Int] {
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            try predicates.map { try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: $0))) }
        }
    }

    @Test func deletesDecodeOnlyTheKeysAndReadsSeeTheSameRowsAsAfterADecode() throws {
        let (lazy, before) = try Fixture.reopenedFromSnapshot()
        defer { lazy.remove() }
        let (eager, _) = try Fixture.reopenedFromSnapshot()
        defer { eager.remove() }
        _ = TailAppendTests.contents(eager.store.currentVersion, 0)   // every chunk decoded
        let rounds: [(Int64) -> Bool] = [{ $0 % 2 == 0 }, { $0 % 3 == 0 }, { $0 > 1_000 && $0 <= 2_100 }]
        var expected = before
        for (round, deleted) in rounds.enumerated() {
            let keys = expected.map(Self.key).filter(deleted)
            try Self.delete(keys, from: lazy.store)
            try Self.delete(keys, from: eager.store)
            expected.removeAll { deleted(Self.key($0)) }
            let table = lazy.store.currentVersion.tables[0]
            // Nothing but key columns decoded: each chunk is still undecoded, its keys alone
            // kept (chunks past the last deleted key are not even read).
            for chunk in table.chunks {
                #expect(chunk.decoded.load() == nil, "round \(round): a chunk was decoded whole")
                #expect([[], [EntityLayout.primaryKeyColumn]].contains(Fixture.columnsDecodedAlone(chunk)), "round \(round)")
            }
            #expect(table.chunks.contains { Fixture.columnsDecodedAlone($0) == [EntityLayout.primaryKeyColumn] })
            #expect(table.rowCount == expected.count && table.chunks.map(\.count).reduce(0, +) == expected.count)
            #expect(table.chunks.map(\.firstKey) == table.chunkFirstKeys)
            // Statistics still skip chunks, and predicates see the same rows either way.
            #expect(try Self.counts(lazy.store) == Self.counts(eager.store), "round \(round)")
            #expect(TailAppendTests.contents(lazy.store.currentVersion, 0) == expected, "round \(round)")
            #expect(TailAppendTests.contents(eager.store.currentVersion, 0) == expected, "round \(round)")
            // The next round deletes from chunks whose reads above decoded them: reopen so
            // that it deletes from undecoded chunks again, on top of this round's deletes.
            try lazy.reopen()
            #expect(TailAppendTests.contents(lazy.store.currentVersion, 0) == expected, "round \(round): log replay")
            try lazy.store.checkpoint()
            try lazy.reopen()
        }
        #expect(TailAppendTests.contents(lazy.store.currentVersion, 0) == expected)
    }

    /// IDs of rows that do not exist (before the first key, between chunks' keys, past the
    /// last) are left out of the delete and its count, whichever the first missing one is.
    @Test(arguments: [[Int64(0), 10, 11, 12], [10, 11, 3_000, 9_000], [4_998, 4_999, 5_000, 5_001, 7_000], [-5, 2, 5_003]])
    func idsOfAbsentRowsAreNotCounted(listed: [Int64]) throws {
        let (fixture, before) = try Fixture.reopenedFromSnapshot()
        defer { fixture.remove() }
        try Self.delete([3_000], from: fixture.store)
        let present = listed.filter { (1...5_000).contains($0) && $0 != 3_000 }
        let ids = listed.map { ObjectID(storeID: fixture.store.storeID, entityName: "Item", primaryKey: $0) }
        var request = BatchDeleteRequest(objectIDs: ids)
        request.resultType = .objectIDs
        let result = try fixture.store.execute(request)
        #expect(result.objectIDSet.map { Array($0).map(\.primaryKey) } == present)
        #expect(TailAppendTests.contents(fixture.store.currentVersion, 0)
            == before.filter { !present.contains(Self.key($0)) && Self.key($0) != 3_000 })
    }

    /// Two deletes in a row on the same undecoded chunks: the second numbers rows after the
    /// first, and its removed rows are merged with the first's.
    @Test func successiveDeletesOnUndecodedChunksCompose() throws {
        let (fixture, before) = try Fixture.reopenedFromSnapshot()
        defer { fixture.remove() }
        var expected = before
        for divisor in [Int64(7), 2, 5] {
            let keys = expected.map(Self.key).filter { $0 % divisor == 1 }
            try Self.delete(keys, from: fixture.store)
            expected.removeAll { Self.key($0) % divisor == 1 }
            #expect(Fixture.undecoded(fixture.store.currentVersion.tables[0]) == 0, "the key columns are decoded alone")
            #expect(fixture.store.currentVersion.tables[0].chunks.allSatisfy { $0.decoded.load() == nil })
        }
        // A whole chunk's rows, then everything: empty chunks are dropped.
        let firstChunk = fixture.store.currentVersion.tables[0].chunks[0].primaryKeysAlone
        try Self.delete(firstChunk, from: fixture.store)
        expected.removeAll { firstChunk.contains(Self.key($0)) }
        #expect(TailAppendTests.contents(fixture.store.currentVersion, 0) == expected)
        try fixture.reopen()
        #expect(TailAppendTests.contents(fixture.store.currentVersion, 0) == expected)
        try Self.delete(expected.map(Self.key), from: fixture.store)
        #expect(fixture.store.currentVersion.tables[0].chunks.isEmpty)
        try fixture.store.checkpoint()
        try fixture.reopen()
        #expect(TailAppendTests.contents(fixture.store.currentVersion, 0).isEmpty)
    }
}
