import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// The fetch planner with indexes, on a small store whose answers are known: which plan
/// runs, and that sorted walks keep ties in primary-key order both ways.
@Suite struct IndexFetchTests {
    static let schema = try! Schema {
        Entity("Item", indexes: [["rank"], ["label", "rank"]]) {
            Attribute("rank", .int32, optional: true)
            Attribute("label", .string)
            Relationship("list", to: "List", inverse: "items")
        }
        Entity("List") {
            Attribute("title", .string)
            Relationship("items", to: "Item", inverse: "list", toMany: true)
        }
    }

    /// 40 items: ranks 0...4 repeating (every 9th nil), labels a/b; two lists.
    static func withStore(_ body: (PersistentStore, ObjectContext) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: schema)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let lists = try (0..<2).map { i in
                let list = try context.insert("List")
                try list.setValue(.string("L\(i)"), forKey: "title")
                return list
            }
            for i in 0..<40 {
                let item = try context.insert("Item")
                try item.setValues(["rank": i % 9 == 0 ? .null : .int(Int64(i % 5)), "label": .string(i % 2 == 0 ? "a" : "b")])
                try item.setObject(lists[i % 3 == 0 ? 0 : 1], forKey: "list")
            }
            try context.save()
        }
        try body(store, context)
    }

    @Test func aSortedFetchWalksTheIndexAndKeepsTiesInKeyOrder() throws {
        try Self.withStore { store, context in
            for ascending in [true, false] {
                let request = FetchRequest(entityName: "Item", sortKeys: [SortKey("rank", ascending: ascending)])
                #expect(try store.fetchStrategy(request).orderIndex == ["rank"])
                let rows = try store.fetchRows(request).rows
                // The expected order: by rank (nil first ascending), ties by primary key.
                let expected = rows.sorted { a, b in
                    let x = a.values[0], y = b.values[0]
                    if x != y {
                        let less = IndexEntry.compare(x, y) == .orderedAscending
                        return ascending ? less : !less
                    }
                    return a.primaryKey < b.primaryKey
                }
                #expect(rows.map(\.primaryKey) == expected.map(\.primaryKey))
                #expect(try context.performAndWait { try context.keys(request) } == rows.map(\.primaryKey))
            }
        }
    }

    @Test func lookupsSayWhichIndexFoundTheRows() throws {
        try Self.withStore { store, _ in
            let point = try store.fetchStrategy(FetchRequest(entityName: "Item", predicate: ObjectPredicate(format: "rank IN {1, 3}")))
            #expect(point.lookupIndex == ["rank"])
            // Ranks 1 and 3: 7 items each (items 36 and 18 have nil); all 40 rows in one chunk.
            #expect(point.description == "rows: index (rank), rank in {1, 3}\norder: sort (or primary key)\nestimate: 14 candidates from the index, 40 rows to scan")
            // The rank index has fewer candidates (14 ranks above 2) than the label one (20 b's);
            // the scan would check all 40 rows with the row evaluator, so the 14 checks win.
            let compound = try store.fetchStrategy(FetchRequest(entityName: "Item", predicate: ObjectPredicate(format: "label == 'b' AND rank > 2")))
            #expect(compound.lookupIndex == ["rank"])
            #expect(compound.estimatedCandidates == 14)
            // Alone, the label pins the compound index's first property.
            let label = try store.fetchStrategy(FetchRequest(entityName: "Item", predicate: ObjectPredicate(format: "label == 'b'")))
            #expect(label.lookupIndex == ["label", "rank"] || label.rejectedIndex == ["label", "rank"])
            let scan = try store.fetchStrategy(FetchRequest(entityName: "Item", predicate: ObjectPredicate(format: "label ==[c] 'B'")))
            #expect(scan.lookupIndex == nil)
            let ranks = try store.fetchRows(FetchRequest(entityName: "Item", predicate: ObjectPredicate(format: "rank IN {1, 3} AND label == 'a'"))).rows
            // Item i has primary key i + 1 (keys count per entity).
            var expected: [Int64] = []
            for i in 0..<40 where i % 9 != 0 && i % 2 == 0 {
                let rank = i % 5
                if rank == 1 || rank == 3 { expected.append(Int64(i + 1)) }
            }
            #expect(ranks.map(\.primaryKey) == expected)
        }
    }

    @Test func aToManyRelationshipReadsThroughTheInverseIndex() throws {
        try Self.withStore { store, context in
            #expect(store.currentVersion.tables[0].index(leadingWith: 2) != nil, "Item.list is indexed without being declared")
            try context.performAndWait {
                let lists = try context.fetch(FetchRequest(entityName: "List", sortKeys: [SortKey("title")]))
                let first = try lists[0].objects(forKey: "items").map(\.objectID.primaryKey)
                let second = try lists[1].objects(forKey: "items").map(\.objectID.primaryKey)
                let keys: [Int64] = (1...40).map { Int64($0) }
                #expect(first == keys.filter { ($0 - 1) % 3 == 0 })
                #expect(second == keys.filter { ($0 - 1) % 3 != 0 })
            }
        }
    }
}
