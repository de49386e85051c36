import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Issue 21: an asynchronous fetch lists its matches as ``FetchMatches`` (keys only once they
/// are not one apart, rows only once a chunk's matches skip a row) instead of ``FetchItem``s.
/// Read back in order or at any position, they must be exactly the items a scan lists, and a
/// scan with no predicate of a bulk-loaded store must list neither.
@Suite struct FetchMatchesTests {
    /// Random matches chunk by chunk (some chunks skipped, some whole, some a prefix, some
    /// with gaps), appended to both lists.
    static func randomMatches(_ rng: inout SplitMix64, chunks: Int, gaps: Bool) -> (FetchMatches, [FetchItem]) {
        var matches = FetchMatches(), items: [FetchItem] = []
        var key: Int64 = 1
        // Keys one apart (as a bulk load's) in most stores; with holes in a few.
        let holes = rng.next() % 3 == 0
        for chunk in 0..<chunks {
            let rows = 1 + Int(rng.next() % 40)
            let shape = rng.next() % 4
            for row in 0..<rows {
                key += holes && rng.next() % 50 == 0 ? 2 : 1
                switch shape {
                case 0: continue                                         // skipped chunk
                case 1: if row >= rows / 2 { continue }                  // a prefix
                case 2: if gaps && rng.next() % 3 == 0 { continue }      // rows skipped
                default: break                                           // whole
                }
                matches.append(key: key, chunk: chunk, row: row)
                items.append(key: key, chunk: chunk, row: row)
            }
        }
        return (matches, items)
    }

    static func same(_ a: FetchItem, _ b: FetchItem) -> Bool {
        guard case .row(let k1, let c1, let r1) = a, case .row(let k2, let c2, let r2) = b else { return false }
        return (k1, c1, r1) == (k2, c2, r2)
    }

    @Test(arguments: [false, true]) func readsBackWhatWasAppended(gaps: Bool) {
        for seed in UInt64(1)...40 {
            var rng = SplitMix64(seed: seed)
            let (matches, items) = Self.randomMatches(&rng, chunks: Int(rng.next() % 12), gaps: gaps)
            #expect(matches.count == items.count, "seed \(seed)")
            #expect(items.indices.map(matches.primaryKey(at:)) == items.map(\.primaryKey), "seed \(seed)")
            #expect(Array(matches).count == items.count && zip(matches, items).allSatisfy(Self.same), "seed \(seed): in order")
            #expect(items.indices.allSatisfy { Self.same(matches[$0], items[$0]) && matches.primaryKey(at: $0) == items[$0].primaryKey },
                    "seed \(seed): at each position")
        }
    }

    @Test func keysAndRowsAreListedOnlyOnceNeeded() {
        var matches = FetchMatches()
        for row in 0..<5 { matches.append(key: Int64(row + 10), chunk: 0, row: row) }
        for row in 0..<3 { matches.append(key: Int64(row + 15), chunk: 2, row: row) }
        #expect(!matches.listsKeys && !matches.listsRows, "keys one apart, whole chunks and prefixes: nothing listed")
        matches.append(key: 40, chunk: 3, row: 0)
        #expect(matches.listsKeys && !matches.listsRows)
        matches.append(key: 42, chunk: 3, row: 2)
        #expect(matches.listsKeys && matches.listsRows)
        let expected: [(Int64, UInt32, UInt32)] = [(10, 0, 0), (11, 0, 1), (12, 0, 2), (13, 0, 3), (14, 0, 4), (15, 2, 0), (16, 2, 1),
                                                   (17, 2, 2), (40, 3, 0), (42, 3, 2)]
        #expect(matches.count == expected.count)
        #expect(zip(matches, expected).allSatisfy { item, want in Self.same(item, .row(key: want.0, chunk: want.1, row: want.2)) })
        #expect(expected.indices.allSatisfy { Self.same(matches[$0], .row(key: expected[$0].0, chunk: expected[$0].1, row: expected[$0].2)) })
    }

    /// A store's scans: with no predicate the matches of a bulk load list nothing, and after
    /// a delete only keys; with a predicate keys and rows; either way they are the items the
    /// scan lists.
    @Test func aScanListsWhatItListsAsItems() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 5_000)
        let cases: [(String?, deleted: Bool, keys: Bool, rows: Bool)] = [
            (nil, false, false, false), ("done == NO", false, true, true),
            (nil, true, true, false), ("done == NO", true, true, true), ("priority == 4 OR name ENDSWITH '9'", true, true, true),
        ]
        for (format, deleted, listsKeys, listsRows) in cases {
            if deleted && store.rowCounts["TodoItem"] == 5_000 {
                _ = try store.execute(BatchDeleteRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "priority == 3")))
            }
            let what = "\(format ?? "no predicate")\(deleted ? " after a delete" : "")"
            let plan = try FetchPlan(FetchRequest(entityName: "TodoItem", predicate: try format.map { try ObjectPredicate(format: $0) }), store: store)
            let version = store.currentVersion
            let items = try #require(plan.scan(version))
            let matches = try #require(plan.scan(version, into: FetchMatches.self))
            #expect(matches.listsKeys == listsKeys && matches.listsRows == listsRows, "\(what)")
            #expect(matches.count == items.count && zip(matches, items).allSatisfy(Self.same), "\(what)")
            #expect(items.indices.allSatisfy { matches.primaryKey(at: $0) == items[$0].primaryKey }, "\(what)")
        }
    }
}
