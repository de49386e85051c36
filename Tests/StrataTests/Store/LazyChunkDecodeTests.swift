import Dispatch
import Foundation
import Testing
import StrataTestSupport
import StrataStorage
@testable import Strata

/// Issue 21: a store opened from a snapshot decodes each chunk's columns when it is first
/// read, not at open. The values must be the same as an eager decode's, whichever threads
/// read first, and damage in the snapshot must still stop the open.
@Suite struct LazyChunkDecodeTests {
    static let schema = TailAppendTests.schema
    static let rows = 5_000

    /// A store of `rows` items (five chunks and a bit), checkpointed and reopened: everything
    /// comes from the snapshot. Returns the fixture and the contents before the reopen.
    static func reopenedFromSnapshot() throws -> (StoreFixture, [String]) {
        let fixture = try StoreFixture(schema)
        var objects: [[String: AttributeValue]] = []
        for key in 1...rows {
            var row: [String: AttributeValue] = ["name": .string("item \(key)"), "done": .bool(key % 2 == 0)]
            row["note"] = key % 5 == 0 ? AttributeValue.string("note \(key)") : AttributeValue.null
            row["count"] = key % 3 == 0 ? AttributeValue.null : AttributeValue.int(Int64(key))
            objects.append(row)
        }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: objects))
        let before = TailAppendTests.contents(fixture.store.currentVersion, 0)
        try fixture.store.checkpoint()
        try fixture.reopen()
        return (fixture, before)
    }

    static func undecoded(_ table: EntityTable) -> Int {
        table.chunks.filter { $0.decoded.load() == nil }.count
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

    /// Flipped bits anywhere in the chunk region are found at open (every chunk's checksum is
    /// verified there), never left for a later read to decode into wrong values.
    @Test func aFlippedBitInAChunkFailsTheOpen() throws {
        let (fixture, before) = try Self.reopenedFromSnapshot()
        defer { fixture.remove() }
        try fixture.store.close()
        let path = fixture.directory.path
        let snapshot = try #require(try FileManager.default.contentsOfDirectory(atPath: path).first { $0.hasSuffix(".snap") })
        let reader = try SnapshotReader(fileSystem: PosixFileSystem(), directory: path, name: snapshot)
        let region = reader.chunks.first!.offset..<(reader.chunks.last!.offset + Int64(reader.chunks.last!.length))
        let original = try Data(contentsOf: URL(fileURLWithPath: "\(path)/\(snapshot)"))
        for step in 0..<12 {
            let offset = Int(region.lowerBound) + Int(region.count) * step / 12 + step
            var damaged = original
            damaged[offset] ^= 0x10
            try damaged.write(to: URL(fileURLWithPath: "\(path)/\(snapshot)"))
            do {
                let store = try PersistentStore.open(at: path, schema: Self.schema)
                // Recovery may rebuild the state from elsewhere; then it must be the right one.
                #expect(TailAppendTests.contents(store.currentVersion, 0) == before, "byte \(offset)")
                try store.close()
            } catch let error as StorageError {
                #expect(error.code == .corrupted, "byte \(offset)")
            }
        }
        try original.write(to: URL(fileURLWithPath: "\(path)/\(snapshot)"))
        let store = try PersistentStore.open(at: path, schema: Self.schema)
        #expect(TailAppendTests.contents(store.currentVersion, 0) == before)
        try store.close()
    }
}
