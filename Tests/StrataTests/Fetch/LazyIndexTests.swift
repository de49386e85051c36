import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// Indexes are built on first use, not at open: an open leaves them pending, the first fetch
/// that plans through one builds it, commits keep a built index up to date, and answers are
/// the same before and after the build.
@Suite struct LazyIndexTests {
    static let schema = try! Schema {
        Entity("Note", indexes: [["rank"], ["title"]]) {
            Attribute("rank", .int64)
            Attribute("title", .string)
        }
    }

    static func insert(_ context: ObjectContext, ranks: Range<Int>) throws {
        try context.performAndWait {
            for rank in ranks {
                let note = try context.insert("Note")
                try note.setValues(["rank": .int(Int64(rank % 50)), "title": .string("n\(rank)")])
            }
            try context.save()
        }
    }

    static func keys(_ store: PersistentStore, _ format: String) throws -> [Int64] {
        try store.fetchRows(FetchRequest(entityName: "Note", predicate: ObjectPredicate(format: format))).rows.map(\.primaryKey)
    }

    /// Whether the index at `position` of the newest version is built.
    static func isBuilt(_ store: PersistentStore, _ position: Int) -> Bool {
        store.currentVersion.tables[0].indexes[position].isBuilt
    }

    @Test func anOpenBuildsNoIndexAndTheFirstLookupBuildsOnlyItsOwn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = try PersistentStore.open(at: directory.path, schema: Self.schema)
        try Self.insert(ObjectContext(store: store), ranks: 0..<3_000)
        _ = try store.checkpoint()
        try store.close()

        store = try PersistentStore.open(at: directory.path, schema: Self.schema)
        defer { try? store.close() }
        #expect(!Self.isBuilt(store, 0) && !Self.isBuilt(store, 1), "the open built an index")
        #expect(store.rowCounts["Note"] == 3_000)
        #expect(!Self.isBuilt(store, 0), "a count built an index")
        // Rank 7: notes 7, 57, 107, … (keys one more).
        let expected = (0..<3_000).filter { $0 % 50 == 7 }.map { Int64($0 + 1) }
        #expect(try Self.keys(store, "rank == 7") == expected)
        #expect(Self.isBuilt(store, 0), "the lookup did not build the rank index")
        #expect(!Self.isBuilt(store, 1), "the lookup built the title index too")
    }

    @Test func commitsKeepABuiltIndexBuiltAndAPendingOnePending() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: Self.schema)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        try Self.insert(context, ranks: 0..<2_000)
        #expect(try Self.keys(store, "rank == 3").count == 40)
        try Self.insert(context, ranks: 2_000..<2_100)
        #expect(Self.isBuilt(store, 0), "a commit dropped the built rank index")
        #expect(!Self.isBuilt(store, 1), "a commit built the pending title index")
        // The built index followed the commit: the new rank-3 notes are found.
        #expect(try Self.keys(store, "rank == 3") == (0..<2_100).filter { $0 % 50 == 3 }.map { Int64($0 + 1) })
        // So does the index built after the commits: titles n205 and n2050…n2059.
        let prefix = FetchRequest(entityName: "Note", predicate: try ObjectPredicate(format: "title BEGINSWITH 'n205'"))
        let strategy = try store.fetchStrategy(prefix)
        #expect(strategy.lookupIndex == ["title"])
        #expect(strategy.lookupConstraint == "title BEGINSWITH \"n205\"")
        #expect(try Self.keys(store, "title BEGINSWITH 'n205'") == [206] + (2_050...2_059).map { Int64($0 + 1) })
        #expect(Self.isBuilt(store, 1))
    }

    @Test func aVersionReadBeforeAndAfterTheBuildGivesTheSameRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: Self.schema)
        defer { try? store.close() }
        try Self.insert(ObjectContext(store: store), ranks: 0..<2_000)
        let old = store.currentVersion
        try Self.insert(ObjectContext(store: store), ranks: 2_000..<2_500)
        // The newest version builds its index; the pinned older one builds its own.
        let newest = store.currentVersion.tables[0]
        let built = newest.indexes[0].index(for: newest)
        let pinned = old.tables[0].indexes[0].index(for: old.tables[0])
        #expect(built.count == 2_500 && pinned.count == 2_000)
        let nines: [Int64] = (0..<2_500).filter { $0 % 50 == 9 }.map { Int64($0 + 1) }
        let newer: [Int64] = built.primaryKeys(matching: [.int(9)])
        let older: [Int64] = pinned.primaryKeys(matching: [.int(9)])
        #expect(newer == nines)
        #expect(older == nines.filter { $0 <= 2_000 })
    }
}
