import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// `KeyRanges` of keys none of which follows another (a batch delete of every other row) keep
/// the keys themselves: they read, count, compare, encode and decode as the same keys kept as
/// runs of one do, and hand the keys back without listing them again.
@Suite struct IsolatedKeyRangesTests {
    /// The same key set as runs, built from runs of one key (the form a decoded record takes).
    static func asRuns(_ keys: [Int64]) throws -> KeyRanges {
        var writer = ByteWriter()
        writer.write(UInt32(keys.count))
        var previousEnd: Int64 = 0
        for key in keys {
            Varint.write(UInt64(key - previousEnd), into: &writer)
            Varint.write(1, into: &writer)
            previousEnd = key + 1
        }
        var reader = ByteReader(writer.bytes)
        return try KeyRanges(decoding: &reader)
    }

    @Test func everyOtherKeyReadsAsRunsOfOne() throws {
        let keys: [Int64] = stride(from: 2, through: 2_000, by: 2).map { $0 }
        let isolated = KeyRanges(sortedKeys: keys)
        let runs = try Self.asRuns(keys)
        #expect(isolated == runs && runs == isolated)
        #expect(isolated.count == 1_000 && isolated.runs.count == 1_000)
        #expect(isolated.runs.allSatisfy { $0.count == 1 })
        #expect(isolated.runs.map(\.first) == keys)
        #expect(isolated.keys == keys && runs.keys == keys)
        for key in Int64(0)...2_001 { #expect(isolated.contains(key) == (key % 2 == 0 && key >= 2 && key <= 2_000)) }
        var a = ByteWriter(), b = ByteWriter()
        isolated.encode(into: &a)
        runs.encode(into: &b)
        #expect(a.bytes == b.bytes)
        var reader = ByteReader(a.bytes)
        #expect(try KeyRanges(decoding: &reader) == isolated)
    }

    /// One pair of consecutive keys is a run of two: the keys are then kept as runs.
    @Test func aPairOfConsecutiveKeysIsARunOfTwo() {
        let ranges = KeyRanges(sortedKeys: [1, 3, 4, 9])
        #expect(ranges.runs.map(\.first) == [1, 3, 9])
        #expect(ranges.runs.map(\.count) == [1, 2, 1])
        #expect(ranges.keys == [1, 3, 4, 9] && ranges.count == 4)
        #expect(ranges != KeyRanges(sortedKeys: [1, 3, 9]))
        #expect(KeyRanges(sortedKeys: [5]) == KeyRanges(first: 5, count: 1))
        #expect(KeyRanges(sortedKeys: []) == KeyRanges(first: 1, count: 0))
    }

    /// A batch delete of every other row through the store: the rows left, the IDs reported
    /// and the record replayed at reopen are those of the even keys.
    @Test func aBatchDeleteOfEveryOtherRowReplays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let schema = try Schema { Entity("Item") { Attribute("n", .int64) } }
        var store = try PersistentStore.open(at: directory.path, schema: schema)
        _ = try store.execute(BatchInsertRequest(entityName: "Item", count: 3_000) { index, row in row["n"] = .int(Int64(index)) })
        let even = stride(from: 2, through: 3_000, by: 2).map { ObjectID(storeID: store.storeID, entityName: "Item", primaryKey: Int64($0)) }
        var request = BatchDeleteRequest(objectIDs: even)
        request.resultType = .objectIDs
        let result = try store.execute(request)
        #expect(result.objectIDs.map(Set.init) == Set(even))
        #expect(store.rowCounts["Item"] == 1_500)
        try store.close()
        store = try PersistentStore.open(at: directory.path, schema: schema)
        defer { try? store.close() }
        #expect(store.rowCounts["Item"] == 1_500)
        let context = ObjectContext(store: store)
        let left = try context.performAndWait { try context.fetchObjectIDs(FetchRequest(entityName: "Item", sortKeys: [SortKey("n")])).map(\.primaryKey) }
        #expect(left == stride(from: 1, through: 2_999, by: 2).map { Int64($0) })
    }
}
