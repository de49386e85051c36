import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// The planner's cost model: an index serves a constraint only when its estimated
/// candidates cost less than the scan with chunk skipping, and `--explain` gives the figures.
/// Whichever plan runs, the fetch returns the same rows.
@Suite struct IndexCostTests {
    static let schema = try! Schema {
        Entity("Reading", indexes: [["level"], ["tag"]]) {
            Attribute("level", .int64)
            Attribute("tag", .string)
        }
    }

    static let rows = 4_000

    /// Reading i has level i % 1000 (so levels are spread over every chunk) and tag "t(i % 2)";
    /// its primary key is i + 1.
    static func withStore(_ body: (PersistentStore) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: schema)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for i in 0..<rows {
                let reading = try context.insert("Reading")
                try reading.setValues(["level": .int(Int64(i % 1000)), "tag": .string("t\(i % 2)")])
            }
            try context.save()
        }
        try body(store)
    }

    static func keys(_ store: PersistentStore, _ format: String) throws -> [Int64] {
        try store.fetchRows(FetchRequest(entityName: "Reading", predicate: ObjectPredicate(format: format))).rows.map(\.primaryKey)
    }

    static func expected(_ matches: (_ level: Int, _ tag: Int) -> Bool) -> [Int64] {
        (0..<rows).filter { matches($0 % 1000, $0 % 2) }.map { Int64($0 + 1) }
    }

    @Test func aNarrowRangeReadsTheIndexAndAWideOneScans() throws {
        try Self.withStore { store in
            let narrow = try store.fetchStrategy(FetchRequest(entityName: "Reading", predicate: ObjectPredicate(format: "level BETWEEN {10, 19}")))
            #expect(narrow.lookupIndex == ["level"])
            #expect(narrow.estimatedCandidates == 40)
            // The last chunk (readings 3072…3999, levels 72…999) is ruled out by its minimum.
            #expect(narrow.scannedRows == 3_072)
            #expect(narrow.description.hasSuffix("\nestimate: 40 candidates from the index, 3072 rows to scan"), "\(narrow.description)")
            #expect(try Self.keys(store, "level BETWEEN {10, 19}") == Self.expected { level, _ in (10...19).contains(level) })

            let wide = try store.fetchStrategy(FetchRequest(entityName: "Reading", predicate: ObjectPredicate(format: "level >= 100")))
            #expect(wide.lookupIndex == nil)
            #expect(wide.rejectedIndex == ["level"])
            #expect(wide.estimatedCandidates == 3_600)
            #expect(wide.description.hasPrefix("rows: chunk scan (index (level) not used for level in "), "\(wide.description)")
            #expect(try Self.keys(store, "level >= 100") == Self.expected { level, _ in level >= 100 })
        }
    }

    @Test func candidatesThatNeedCheckingAreCheckedAndCounted() throws {
        try Self.withStore { store in
            // 40 candidates, each checked against the tag: still cheaper than 4,000 rows.
            let narrow = "level BETWEEN {10, 19} AND tag == 't1'"
            #expect(try store.fetchStrategy(FetchRequest(entityName: "Reading", predicate: ObjectPredicate(format: narrow))).lookupIndex == ["level"])
            #expect(try Self.keys(store, narrow) == Self.expected { level, tag in (10...19).contains(level) && tag == 1 })
            // Either index gives 2,000 candidates; whichever plan runs, the rows are the same.
            let wide = "level < 500 AND tag == 't1'"
            let strategy = try store.fetchStrategy(FetchRequest(entityName: "Reading", predicate: ObjectPredicate(format: wide)))
            #expect(strategy.estimatedCandidates == 2_000)
            #expect(try Self.keys(store, wide) == Self.expected { level, tag in level < 500 && tag == 1 })
        }
    }

    @Test func thePointLookupWithFewestCandidatesWins() throws {
        try Self.withStore { store in
            let format = "tag == 't0' AND level == 7"
            let strategy = try store.fetchStrategy(FetchRequest(entityName: "Reading", predicate: ObjectPredicate(format: format)))
            #expect(strategy.lookupIndex == ["level"])
            #expect(strategy.estimatedCandidates == 4)
            #expect(try Self.keys(store, format) == Self.expected { level, tag in level == 7 && tag == 0 })
        }
    }
}
