import Dispatch
import Foundation
import Testing
import StrataTestSupport
import StrataStorage
@testable import Strata

/// Issue 21: a store opened from a snapshot decodes each chunk's columns when it is first
/// read, not at open. The values must be the same as an eager decode's, whichever threads
/// read first, and damage in the snapshot must never be read as values.
@Suite struct LazyChunkDecodeTests {
    static let schema = TailAppendTests.schema
    static let rows = 5_000

    /// A store of `rows` items (five chunks and a bit), checkpointed and reopened: everything
    /// comes from the snapshot. Returns the fixture and the contents before the reopen.
    static func reopenedFromSnapshot() throws -> (StoreFixture, [String]) {
        let fixture = try StoreFixture(schema)
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: objects()))
        let before = TailAppendTests.contents(fixture.store.currentVersion, 0)
        try fixture.store.checkpoint()
        try fixture.reopen()
        return (fixture, before)
    }

    /// The ``rows`` items, key 1 first: every second done, every fifth with a note, every
    /// third without a count.
    static func objects() -> [[String: AttributeValue]] {
        (1...rows).map { key in
            var row: [String: AttributeValue] = ["name": .string("item \(key)"), "done": .bool(key % 2 == 0)]
            row["note"] = key % 5 == 0 ? AttributeValue.string("note \(key)") : AttributeValue.null
            row["count"] = key % 3 == 0 ? AttributeValue.null : AttributeValue.int(Int64(key))
            return row
        }
    }

    /// Chunks of which nothing is decoded: neither the whole chunk nor any column alone
    /// (`TableChunk.someColumns`).
    static func undecoded(_ table: EntityTable) -> Int {
        table.chunks.filter { chunk in
            chunk.decoded.load() == nil && chunk.pending != nil && chunk.withPendingSource { _, partial in partial.isEmpty }
        }.count
    }

    /// The column numbers decoded alone of an undecoded chunk (`TableChunk.someColumns`).
    static func columnsDecodedAlone(_ chunk: TableChunk) -> [Int] {
        guard chunk.pending != nil else { return [] }
        return chunk.withPendingSource { _, partial in partial.indices.filter { partial[$0] != nil } }
    }

    @Test func openDecodesNothingAndKnowsEachChunksKeyRange() throws {
        let (fixture, before) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        let table = fixture.store.currentVersion.tables[0]
        #expect(table.chunks.count > 4)
        #expect(Self.undecoded(table) == table.chunks.count, "open decoded a chunk")
        #expect(table.rowCount == Self.rows)
        // The key ranges (from the footer) route lookups without decoding other chunks.
        #expect(table.locate(4_000) != nil)
        #expect(Self.undecoded(table) == table.chunks.count - 1)
        #expect(table.locate(Int64(Self.rows) + 1) == nil)
        #expect(table.locate(0) == nil)
        #expect(TailAppendTests.contents(fixture.store.currentVersion, 0) == before)
        #expect(Self.undecoded(table) == 0)
        for chunk in table.chunks {
            #expect(chunk.firstKey == chunk.primaryKeys.first && chunk.lastKey == chunk.primaryKeys.last)
        }
    }

    @Test(arguments: 1...3) func concurrentFirstReadsReturnTheSameValues(round: Int) throws {
        let (fixture, before) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        let version = fixture.store.currentVersion
        let table = version.tables[0]
        let threads = 8
        let seen = Locked<[[String]]>([])
        let boxes = Locked<[[ObjectIdentifier]]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            // Each thread starts at a different chunk, so first reads collide in every order.
            let order = table.chunks.indices.map { (($0 + thread * round) % table.chunks.count) }
            let identities = order.map { ObjectIdentifier(table.chunks[$0].loaded) }
            var byChunk = [ObjectIdentifier](repeating: identities[0], count: identities.count)
            for (position, chunk) in order.enumerated() { byChunk[chunk] = identities[position] }
            let contents = TailAppendTests.contents(version, 0)
            seen.withLock { $0.append(contents) }
            boxes.withLock { $0.append(byChunk) }
        }
        for contents in seen.withLock({ $0 }) { #expect(contents == before, "round \(round)") }
        let all = boxes.withLock { $0 }
        #expect(all.count == threads && Set(all).count == 1, "every thread reads the one decoded copy of each chunk")
        // A fetch through a context sees the same rows.
        let context = fixture.context()
        let done = try context.performAndWait {
            try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "done == true")))
        }
        #expect(done == Self.rows / 2)
    }

    @Test func thePrefetchDecodesEveryChunkInTheBackground() throws {
        let (fixture, before) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        try fixture.store.close()
        var options = PersistentStore.Options()
        options.prefetchesSnapshot = true
        let store = try PersistentStore.open(at: fixture.directory.path, schema: Self.schema, options: options)
        defer { try? store.close() }
        let table = store.currentVersion.tables[0]
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.undecoded(table) > 0 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.002) }
        #expect(Self.undecoded(table) == 0, "the prefetch left chunks undecoded")
        #expect(TailAppendTests.contents(store.currentVersion, 0) == before)
    }

    @Test func aPredicateThatSkipsChunksDecodesOnlyTheOthers() throws {
        let (fixture, _) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        let table = fixture.store.currentVersion.tables[0]
        let context = fixture.context()
        let found = try context.performAndWait {
            try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "count >= 4900")))
        }
        #expect(found == (4_900...Self.rows).filter { $0 % 3 != 0 }.count)
        #expect(Self.undecoded(table) == table.chunks.count - 1, "the footer's statistics skip the other chunks")
    }

    /// Flipped bits anywhere in the chunk region are never decoded into values. With nothing
    /// to fall back to (one snapshot, the log trimmed), the default open reads no chunk and
    /// succeeds, and the first read of the damaged chunk records `corrupted`, which every
    /// checked operation then throws; with `verifiesSnapshotAtOpen` the open reads every chunk
    /// and fails. Either way the undamaged file opens to the same rows.
    @Test(arguments: [false, true]) func aFlippedBitInAChunkIsNeverReadAsValues(verifiesAtOpen: Bool) throws {
        let (fixture, before) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        try fixture.store.close()
        let path = fixture.directory.path
        let snapshot = try #require(try FileManager.default.contentsOfDirectory(atPath: path).first { $0.hasSuffix(".snap") })
        let reader = try SnapshotReader(fileSystem: PosixFileSystem(), directory: path, name: snapshot)
        let region = reader.chunks.first!.offset..<(reader.chunks.last!.offset + Int64(reader.chunks.last!.length))
        let original = try Data(contentsOf: URL(fileURLWithPath: "\(path)/\(snapshot)"))
        var options = PersistentStore.Options()
        options.storage.verifiesSnapshotAtOpen = verifiesAtOpen
        for step in 0..<12 {
            let offset = Int(region.lowerBound) + Int(region.count) * step / 12 + step
            var damaged = original
            damaged[offset] ^= 0x10
            try damaged.write(to: URL(fileURLWithPath: "\(path)/\(snapshot)"))
            let store: PersistentStore
            do {
                store = try PersistentStore.open(at: path, schema: Self.schema, options: options)
            } catch let error as StorageError {
                #expect(verifiesAtOpen && error.code == .corrupted, "byte \(offset): \(error)")
                continue
            }
            #expect(!verifiesAtOpen, "byte \(offset): an open that verifies every chunk took a damaged one")
            // Every chunk decoded, unchecked (placeholders for the damaged one), then checked.
            _ = TailAppendTests.contents(store.currentVersion, 0)
            #expect(store.snapshotDamage.error?.code == .corrupted, "byte \(offset)")
            let context = ObjectContext(store: store)
            let error = #expect(throws: StrataError.self, "byte \(offset)") {
                try context.performAndWait { try context.count(for: FetchRequest(entityName: "Item")) }
            }
            #expect(error?.code == .corrupted && error?.message.contains(snapshot) == true, "byte \(offset)")
            try? store.close()
        }
        try original.write(to: URL(fileURLWithPath: "\(path)/\(snapshot)"))
        let store = try PersistentStore.open(at: path, schema: Self.schema, options: options)
        #expect(TailAppendTests.contents(store.currentVersion, 0) == before)
        try store.close()
    }

    /// The open keeps no copy of the snapshot (issue 21): each chunk is read from the file at
    /// its first decode and its checksum verified again there, so a chunk damaged on disk
    /// after the open is refused by the first read of it (the store's damage, `corrupted`),
    /// never decoded from a copy made at open, while reads that skip it still work.
    @Test func theOpenKeepsNoImageAndAFirstReadVerifiesItsChunk() throws {
        let (fixture, _) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        let table = fixture.store.currentVersion.tables[0]
        for chunk in table.chunks {
            #expect(chunk.pending != nil && chunk.withPendingSource { source, _ in source?.residentBytes } == 0, "the open kept the snapshot in memory")
        }
        let path = fixture.directory.path
        let snapshot = try #require(try FileManager.default.contentsOfDirectory(atPath: path).first { $0.hasSuffix(".snap") })
        let last = try #require(try SnapshotReader(fileSystem: PosixFileSystem(), directory: path, name: snapshot).chunks.last)
        // One byte of the last chunk changed in place (the open store's file).
        let file = try #require(FileHandle(forUpdatingAtPath: "\(path)/\(snapshot)"))
        try file.seek(toOffset: UInt64(last.offset) + UInt64(last.length / 2))
        let byte = try #require(try file.read(upToCount: 1))
        try file.seek(toOffset: UInt64(last.offset) + UInt64(last.length / 2))
        try file.write(contentsOf: Data([byte[0] ^ 0x10]))
        try file.close()
        let context = fixture.context()
        // The footer's statistics skip every chunk but the first: the damaged one is not read.
        let low = try context.performAndWait {
            try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "count <= 100")))
        }
        #expect(low == (1...100).filter { $0 % 3 != 0 }.count)
        #expect(Self.undecoded(table) == table.chunks.count - 1)
        let error = #expect(throws: StrataError.self) {
            try context.performAndWait {
                try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "done == true")))
            }
        }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("checksum mismatch") == true, "\(error.map(String.init(describing:)) ?? "")")
    }

    /// A count with a compiled predicate decodes only the columns it compares, of the chunks
    /// it does not skip, and a count without one decodes nothing (issue 21: a one-shot count
    /// of `age` does not decode names); a fetch of IDs adds the key column; the chunk is
    /// decoded whole, to the same values, at the first read of everything.
    @Test func aCompiledPredicateDecodesOnlyTheColumnsItReads() throws {
        let (fixture, before) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        let table = fixture.store.currentVersion.tables[0]
        let layout = try fixture.store.layout(named: "Item")
        let count = try #require(layout.propertyIndex["count"].map { layout.properties[$0].column })
        let done = try #require(layout.propertyIndex["done"].map { layout.properties[$0].column })
        let context = fixture.context()
        let found = try context.performAndWait {
            try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "count >= 4900")))
        }
        #expect(found == (4_900...Self.rows).filter { $0 % 3 != 0 }.count)
        let last = try #require(table.chunks.last)
        #expect(last.decoded.load() == nil, "the count decoded the whole chunk")
        #expect(Self.columnsDecodedAlone(last) == [count], "a count needs no keys")
        // A second predicate adds its column to those already decoded.
        let both = try context.performAndWait {
            try context.count(for: FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "count >= 4900 AND done == true")))
        }
        #expect(both == (4_900...Self.rows).filter { $0 % 3 != 0 && $0 % 2 == 0 }.count)
        #expect(Self.columnsDecodedAlone(last) == [count, done].sorted())
        // Without a predicate, a count reads no column at all.
        let all = try context.performAndWait { try context.count(for: FetchRequest(entityName: "Item")) }
        #expect(all == Self.rows)
        #expect(table.chunks.dropLast().allSatisfy { $0.decoded.load() == nil && Self.columnsDecodedAlone($0).isEmpty })
        // A fetch of IDs lists rows; these chunks' keys are dense (1...rows, never deleted
        // from), so their keys are computed and the key column is not read (`ChunkMatches`).
        let ids = try context.performAndWait {
            try context.fetchObjectIDs(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "count >= 4900")))
        }
        #expect(ids.count == found)
        #expect(ids.map(\.primaryKey) == (4_900...Int64(Self.rows)).filter { $0 % 3 != 0 })
        #expect(last.decoded.load() == nil, "the fetch of IDs decoded the whole chunk")
        #expect(Self.columnsDecodedAlone(last) == [count, done].sorted(), "dense keys were read, not computed")
        #expect(TailAppendTests.contents(fixture.store.currentVersion, 0) == before)
        #expect(table.chunks.allSatisfy { $0.decoded.load() != nil && Self.columnsDecodedAlone($0).isEmpty })
    }
    /// A chunk whose keys have gaps (rows deleted before the checkpoint) cannot compute its
    /// keys: a fetch of IDs reads its key column, and lists the keys that are there; with and
    /// without a predicate, the IDs are the stored ones in key order.
    @Test func aFetchOfIDsReadsTheKeysOfAChunkWithGaps() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let objects = (1...Self.rows).map { key -> [String: AttributeValue] in
            ["name": .string("item \(key)"), "done": .bool(key % 2 == 0), "count": .int(Int64(key))]
        }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: objects))
        // Every seventh row of the last chunks gone: their keys are not a run any more.
        let gone = Set((4_000...Self.rows).filter { $0 % 7 == 0 }.map(Int64.init))
        let entity = try fixture.store.layout(named: "Item").entity.name
        _ = try fixture.store.execute(BatchDeleteRequest(objectIDs: gone.sorted().map {
            ObjectID(storeID: fixture.store.storeID, entityName: entity, primaryKey: $0)
        }))
        try fixture.store.checkpoint()
        try fixture.reopen()
        let table = fixture.store.currentVersion.tables[0]
        let last = try #require(table.chunks.last)
        #expect(!ChunkMatches.hasDenseKeys(last) && ChunkMatches.hasDenseKeys(table.chunks[0]))
        let context = fixture.context()
        let ids = try context.performAndWait {
            try context.fetchObjectIDs(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "count >= 3900")))
        }
        #expect(ids.map(\.primaryKey) == (3_900...Int64(Self.rows)).filter { !gone.contains($0) })
        #expect(Self.columnsDecodedAlone(last).contains(EntityLayout.primaryKeyColumn), "gapped keys must be read")
        let all = try context.performAndWait { try context.fetchObjectIDs(FetchRequest(entityName: "Item")) }
        #expect(all.map(\.primaryKey) == (1...Int64(Self.rows)).filter { !gone.contains($0) })
    }

    /// With `countsKeepDecodedColumns` off (the inspector's open), a count decodes the
    /// compared column of each chunk, counts and keeps nothing, gives the same count as one
    /// that keeps, and uses columns a fetch decoded before (issue 21: the peak memory of a
    /// one-shot `strata count`).
    @Test func aCountThatKeepsNothingLeavesEveryChunkUndecoded() throws {
        let (fixture, before) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        var options = PersistentStore.Options.readOnly
        options.countsKeepDecodedColumns = false
        let reader = try PersistentStore.open(at: fixture.directory.path, schema: Self.schema, options: options)
        let table = reader.currentVersion.tables[0]
        let context = ObjectContext(store: reader)
        let request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "count >= 10 AND done == true"))
        let expected = (10...Self.rows).filter { $0 % 3 != 0 && $0 % 2 == 0 }.count
        #expect(try context.performAndWait { try context.count(for: request) } == expected)
        #expect(Self.undecoded(table) == table.chunks.count, "a count that keeps nothing kept a column")
        #expect(try context.performAndWait { try context.count(for: request) } == expected)
        #expect(Self.undecoded(table) == table.chunks.count)
        // The inspector's store counts the same way.
        let inspector = try StoreInspector.open(at: fixture.directory.path)
        let inspected = ObjectContext(store: inspector.store)
        #expect(try inspected.performAndWait { try inspected.count(for: request) } == expected)
        #expect(Self.undecoded(inspector.store.currentVersion.tables[0]) == table.chunks.count)
        // Columns a fetch decoded are used (and stay) when a count runs afterwards.
        let ids = try context.performAndWait { try context.fetchObjectIDs(request) }
        #expect(ids.count == expected)
        let last = try #require(table.chunks.last)
        let kept = Self.columnsDecodedAlone(last)
        #expect(!kept.isEmpty)
        #expect(try context.performAndWait { try context.count(for: request) } == expected)
        #expect(Self.columnsDecodedAlone(last) == kept)
        #expect(TailAppendTests.contents(reader.currentVersion, 0) == before)
    }
}
