import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// A fetch of the first rows by an indexed attribute (``IndexPrefix``: no predicate, one
/// ascending sort key, a limit) reads them off the index: the rows and their order are the
/// general path's (values as a sort orders them, nil first, ties by primary key), offset
/// and limit applied, through inserts, updates and deletes; other shapes, a descending sort,
/// a double attribute and a context with unsaved changes to the entity take the general path.
@Suite struct IndexPrefixTests {
    static let schema = try! Schema {
        Entity("Item", indexes: [["number"], ["text"], ["when"], ["score"]]) {
            Attribute("number", .int64, optional: true)
            Attribute("text", .string, optional: true)
            Attribute("when", .date, optional: true)
            Attribute("score", .double, optional: true)
            Attribute("plain", .int64, optional: true)
        }
    }

    static func values(_ random: inout SplitMix64) -> [String: AttributeValue] {
        func maybe(_ value: AttributeValue) -> AttributeValue { random.next() % 8 == 0 ? .null : value }
        return ["number": maybe(.int(Int64(random.next() % 40) - 10)),
                "text": maybe(.string(TroubleStrings.string(&random, maxPieces: 2))),
                "when": maybe(.date(Date(timeIntervalSinceReferenceDate: Double(random.next() % 50) * 3_600))),
                "score": maybe(.double(Double(random.next() % 30) / 4)),
                "plain": .int(Int64(random.next() % 10))]
    }

    /// The keys of every row sorted by `key` as the index orders them, then offset and limit.
    static func expected(_ rows: StoredRows, _ key: String, offset: Int, limit: Int) -> [Int64] {
        let column = rows.keys.firstIndex(of: key)!
        let sorted = rows.rows.map { IndexEntry(first: $0.values[column], rest: [], primaryKey: $0.primaryKey) }
            .sorted(by: IndexEntry.precedes)
        return Array(sorted.dropFirst(offset).prefix(limit).map(\.primaryKey))
    }

    static func request(_ key: String, offset: Int, limit: Int, ascending: Bool = true) -> FetchRequest {
        var request = FetchRequest(entityName: "Item", sortKeys: [SortKey(key, ascending: ascending)])
        request.fetchOffset = offset
        request.fetchLimit = limit
        return request
    }

    @Test(arguments: [UInt64(1), 2]) func readsTheFirstRowsOffTheIndex(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: (0..<2_500).map { _ in Self.values(&random) }))
        let context = fixture.context("changes")
        for step in 0..<3 {
            let rows = try fixture.store.fetchRows(FetchRequest(entityName: "Item"))
            let reader = fixture.context("reader")
            for key in ["number", "text", "when"] {
                for (offset, limit) in [(0, 1), (0, 20), (7, 300), (2_400, 500), (0, 10_000)] {
                    let request = Self.request(key, offset: offset, limit: limit)
                    let wanted = Self.expected(rows, key, offset: offset, limit: limit)
                    let prefix = try #require(IndexPrefix(request, store: fixture.store), "\(key): no prefix")
                    #expect(prefix.keys(in: fixture.store) == wanted, "step \(step), \(key) offset \(offset) limit \(limit)")
                    #expect(try reader.performAndWaitFetchKeys(request) == wanted, "step \(step), \(key): the fetch")
                    let objects = try reader.performAndWait { try reader.fetch(request).map(\.objectID.primaryKey) }
                    #expect(objects == wanted, "step \(step), \(key): the objects")
                }
            }
            // Inserts, updates of the indexed values, deletes; then the next step reads again.
            try context.performAndWait {
                let some = try context.fetch(FetchRequest(entityName: "Item")).filter { _ in random.next() % 9 == 0 }
                for object in some {
                    if random.next() % 3 == 0 { context.delete(object); continue }
                    for (key, value) in Self.values(&random) { try object.setValue(value, forKey: key) }
                }
                for _ in 0..<50 {
                    let object = try context.insert("Item")
                    for (key, value) in Self.values(&random) { try object.setValue(value, forKey: key) }
                }
                try context.save()
            }
        }
    }

    @Test func otherShapesTakeTheGeneralPath() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let store = fixture.store
        #expect(IndexPrefix(Self.request("number", offset: 0, limit: 5, ascending: false), store: store) == nil)
        #expect(IndexPrefix(Self.request("score", offset: 0, limit: 5), store: store) == nil, "a double")
        #expect(IndexPrefix(Self.request("plain", offset: 0, limit: 5), store: store) == nil, "no index")
        #expect(IndexPrefix(Self.request("number", offset: 0, limit: 0), store: store) == nil, "no limit")
        var filtered = Self.request("number", offset: 0, limit: 5)
        filtered.predicate = try ObjectPredicate(format: "plain == 3")
        #expect(IndexPrefix(filtered, store: store) == nil)
        var folded = Self.request("text", offset: 0, limit: 5)
        folded.sortKeys = [SortKey("text", caseInsensitive: true)]
        #expect(IndexPrefix(folded, store: store) == nil)
        #expect(IndexPrefix(Self.request("number", offset: 0, limit: 5), store: store) != nil)
    }

    /// Unsaved changes to the entity count: the first rows include a pending insert that
    /// sorts first, and leave out a pending delete.
    @Test func unsavedChangesTakeTheGeneralPath() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: (0..<100).map { ["number": .int(Int64($0))] }))
        let context = fixture.context("pending")
        let request = Self.request("number", offset: 0, limit: 3)
        #expect(try context.performAndWaitFetchKeys(request) == [1, 2, 3])
        try context.performAndWait {
            let first = try #require(try context.fetch(request).first)
            context.delete(first)
            let object = try context.insert("Item")
            try object.setValue(.int(-5), forKey: "number")
            let ids = try context.fetchObjectIDs(request)
            #expect(ids.count == 3 && ids[0] == object.objectID && ids[1].primaryKey == 2 && ids[2].primaryKey == 3)
        }
    }
}
