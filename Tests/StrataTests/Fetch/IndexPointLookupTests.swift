import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// Point lookups and ranges through an index on a table of many chunks and many index
/// leaves (binary searches inside a leaf, candidates far apart in the key order, keys read
/// while estimating) return what a store without the index returns, in the same order.
@Suite struct IndexPointLookupTests {
    static let rows = 6_000

    static func schema(indexed: Bool) -> Schema {
        try! Schema {
            Entity("Person", indexes: indexed ? [["email"], ["score"], ["group", "score"]] : []) {
                Attribute("email", .string)
                Attribute("group", .string)
                Attribute("score", .double, optional: true)
            }
        }
    }

    /// Person `i`: a unique email (not in key order), one of 7 groups, a score with
    /// repeats, every 13th nil and every 11th NaN (which sorts after every number, so that
    /// the index and the leaf searches have one total order, and matches no range).
    static func fill(_ store: PersistentStore) throws {
        _ = try store.execute(BatchInsertRequest(entityName: "Person", count: rows) { i, row in
            row["email"] = .string("p\((i * 7919) % IndexPointLookupTests.rows)@é.example")
            row["group"] = .string(["a", "b", "c", "Ä", "e", "f", "g"][i % 7])
            row["score"] = i % 13 == 0 ? .null : i % 11 == 0 ? .double(.nan) : .double(Double(i % 50) / 4)
        })
    }

    static let predicates: [String] = [
        "email == 'p0@é.example'", "email == 'p5999@é.example'", "email == 'p3001@é.example'",
        "email == 'nobody@é.example'", "email == 'a'", "email == 'zzz'",
        "email IN {'p1@é.example', 'p4000@é.example', 'p17@é.example', 'none'}",
        "email IN {" + (0..<100).map { "'p\($0 * 53)@é.example'" }.joined(separator: ", ") + "}",
        "email BEGINSWITH 'p59'", "email >= 'p58' AND email < 'p6'", "email < 'p1'",
        "score == 3.5", "score == 0", "score BETWEEN {2, 2.5}", "score > 12", "score IN {1, 7.25, 99}",
        "group == 'Ä' AND score == 4", "group == 'c' AND score < 1",
        "score >= 0", "score < 100", "score != 3.5", "group == 'e' AND score > 5",
    ]

    @Test func indexedLookupsReturnWhatAScanReturns() throws {
        let plainDirectory = try TemporaryDirectory(), indexedDirectory = try TemporaryDirectory()
        defer { plainDirectory.remove(); indexedDirectory.remove() }
        let plain = try PersistentStore.open(at: plainDirectory.path, schema: Self.schema(indexed: false))
        let indexed = try PersistentStore.open(at: indexedDirectory.path, schema: Self.schema(indexed: true))
        defer { try? plain.close(); try? indexed.close() }
        try Self.fill(plain)
        try Self.fill(indexed)
        #expect(indexed.currentVersion.tables[0].chunks.count > 3, "the table spans several chunks")
        for format in Self.predicates {
            let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: format))
            let expected = try ObjectContext(store: plain).performAndWaitFetchKeys(request)
            let found = try ObjectContext(store: indexed).performAndWaitFetchKeys(request)
            #expect(found == expected, "\(format)")
        }
        // Sorted by the indexed double (NaN last, nil first), both ways, and by group then score.
        for sort in [[SortKey("score")], [SortKey("score", ascending: false)], [SortKey("group"), SortKey("score")]] {
            for format in ["score > 2", "TRUEPREDICATE"] {
                let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: format), sortKeys: sort)
                let expected = try ObjectContext(store: plain).performAndWaitFetchKeys(request)
                let found = try ObjectContext(store: indexed).performAndWaitFetchKeys(request)
                #expect(found == expected, "\(format) sorted by \(sort)")
            }
        }
        // And that order is nil first, numbers ascending, NaN last (ties by key).
        let context = ObjectContext(store: plain)
        let scores = try context.performAndWait {
            try context.fetch(FetchRequest(entityName: "Person", sortKeys: [SortKey("score")])).map { try $0.value(forKey: "score") }
        }
        let ranks = scores.map { value -> Double in
            switch value {
            case .null: return -.infinity
            case .double(let d) where d.isNaN: return .infinity
            case .double(let d): return d
            default: return .nan
            }
        }
        #expect(zip(ranks, ranks.dropFirst()).allSatisfy { $0 <= $1 }, "nil first, then numbers ascending, then NaN")
        #expect(scores.last.map { if case .double(let d) = $0 { d.isNaN } else { false } } == true)
        // Every email, looked up one by one, finds its one person.
        let lookups = ObjectContext(store: indexed)
        for i in stride(from: 0, to: Self.rows, by: 97) {
            let email = "p\((i * 7919) % Self.rows)@é.example"
            let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", email))
            #expect(try lookups.performAndWaitFetchKeys(request) == [Int64(i + 1)], "\(email)")
        }
        let strategy = try indexed.fetchStrategy(FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == 'p1@é.example'")))
        #expect(strategy.lookupIndex == ["email"])
        #expect(strategy.estimatedCandidates == 1)
    }
}

extension ObjectContext {
    /// The primary keys `request` fetches, on the context's queue.
    func performAndWaitFetchKeys(_ request: FetchRequest) throws -> [Int64] {
        try performAndWait { try fetchObjectIDs(request).map(\.primaryKey) }
    }
}
