import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// With and without an index on a string, every fetch returns the same objects in the same
/// order, on random strings full of combining marks and canonical equivalents: sorted
/// fetches (ascending, descending, case-insensitive), `<`, `<=`, `>`, `>=`, `BETWEEN`, `==`
/// and `BEGINSWITH` through the index (probe, range, walk) and through the scan, with
/// unsaved inserts, changes and deletes in the context. Both also match a plain model that
/// filters and orders by the definition (NFC scalars; `==`; `hasPrefix`).
///
/// Knobs: `STRATA_STRING_FETCH_ROWS` (saved words, default 1,500 — three index leaves),
/// `STRATA_STRING_FETCH_REQUESTS` (requests per seed, default 60), `STRATA_STRING_FETCH_CASES`
/// (seeds, default 1), `STRATA_STRING_FETCH_SEED` (replay one seed printed by a failure).
@Suite struct StringOrderFetchTests {
    static let rows = testKnob("STRATA_STRING_FETCH_ROWS", default: 1_500)
    static let requests = testKnob("STRATA_STRING_FETCH_REQUESTS", default: 60)
    static let cases = testKnob("STRATA_STRING_FETCH_CASES", default: 1)

    static func schema(indexed: Bool) -> Schema {
        try! Schema {
            Entity("Word", indexes: indexed ? [["text"]] : []) {
                Attribute("text", .string, optional: true)
                Attribute("n", .int64)
            }
        }
    }

    /// The definition of the order (``StringOrderTests/reference(_:_:)``), with each string's
    /// NFC scalars computed once.
    final class Reference {
        private var scalars: [String: [UInt32]] = [:]

        func nfc(_ string: String) -> [UInt32] {
            if let known = scalars[string] { return known }
            let computed = StringOrderTests.nfc(string)
            scalars[string] = computed
            return computed
        }

        func compare(_ a: String, _ b: String) -> ComparisonResult {
            let x = nfc(a), y = nfc(b)
            if x == y { return .orderedSame }
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
        }
    }

    /// A request for words matching `format` with `arguments`.
    static func words(_ format: String, _ arguments: any PredicateArgumentConvertible...) throws -> FetchRequest {
        FetchRequest(entityName: "Word", predicate: try ObjectPredicate(format: format, arguments: arguments))
    }

    /// The string of a text value (nil for `.null`).
    static func string(_ value: AttributeValue) -> String? {
        if case .string(let s) = value { return s }
        return nil
    }

    /// A word's text: nil now and then, otherwise a random trouble string.
    static func text(_ rng: inout SplitMix64) -> AttributeValue {
        Int.random(in: 0..<25, using: &rng) == 0 ? .null : .string(TroubleStrings.string(&rng))
    }

    /// The same saved words and the same pending changes in a context on `store`; returns
    /// the context and each word's current text by `n` (the model).
    static func populate(_ store: PersistentStore, seed: UInt64) throws -> (ObjectContext, [Int64: String?]) {
        var rng = SplitMix64(seed: seed)
        var model: [Int64: String?] = [:]
        let texts = (0..<rows).map { _ in text(&rng) }
        _ = try store.execute(BatchInsertRequest(entityName: "Word", count: rows) { i, row in
            row["text"] = texts[i]
            row["n"] = .int(Int64(i))
        })
        for (i, text) in texts.enumerated() { model[Int64(i)] = string(text) }
        let context = ObjectContext(store: store, name: "string-order")
        try context.performAndWait {
            // Unsaved: 40 inserts, 60 changes (some to nil), 20 deletes.
            for j in 0..<40 {
                let word = try context.insert("Word")
                let value = text(&rng)
                try word.setValue(value, forKey: "text")
                try word.setValue(.int(Int64(rows + j)), forKey: "n")
                model[Int64(rows + j)] = string(value)
            }
            var saved: [Int64: ManagedObject] = [:]
            for word in try context.fetch(FetchRequest(entityName: "Word")) { saved[try word.int("n")!] = word }
            for j in 0..<80 {
                let n = Int64.random(in: 0..<Int64(rows), using: &rng)
                guard let word = saved.removeValue(forKey: n) else { continue }
                if j < 60 {
                    let value = text(&rng)
                    try word.setValue(value, forKey: "text")
                    model[n] = string(value)
                } else {
                    context.delete(word)
                    model[n] = nil
                }
            }
        }
        return (context, model)
    }

    /// A random request: one of the comparisons (or none) and one of the sorts (or none).
    static func request(_ rng: inout SplitMix64, keys: [String], reference: Reference) throws -> (FetchRequest, (String?) -> Bool) {
        let key = keys.randomElement(using: &rng)!, other = keys.randomElement(using: &rng)!
        let (low, high) = StringOrder.compare(key, other) == .orderedDescending ? (other, key) : (key, other)
        let order = reference.compare
        var request: FetchRequest
        let matches: (String) -> Bool
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: request = try words("text < %@", key); matches = { order($0, key) == .orderedAscending }
        case 1: request = try words("text <= %@", key); matches = { order($0, key) != .orderedDescending }
        case 2: request = try words("text > %@", key); matches = { order($0, key) == .orderedDescending }
        case 3: request = try words("text >= %@", key); matches = { order($0, key) != .orderedAscending }
        case 4:
            request = try words("text BETWEEN {%@, %@}", low, high)
            matches = { order(low, $0) != .orderedDescending && order($0, high) != .orderedDescending }
        case 5: request = try words("text == %@", key); matches = { $0 == key }
        case 6:
            let prefix = key.isEmpty ? "a" : String(key.prefix(Int.random(in: 1...2, using: &rng)))
            request = try words("text BEGINSWITH %@", prefix); matches = { $0.hasPrefix(prefix) }
        default: request = FetchRequest(entityName: "Word"); matches = { _ in true }
        }
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: break
        case 1: request.sortKeys = [SortKey("text")]
        case 2: request.sortKeys = [SortKey("text", ascending: false)]
        case 3: request.sortKeys = [SortKey("text", caseInsensitive: true)]
        default: request.sortKeys = [SortKey("text", ascending: false, caseInsensitive: true)]
        }
        let isAll = request.predicate == nil
        return (request, { text in text.map(matches) ?? isAll })
    }

    /// Whether `texts` are in the order of `sort` by the definition (nil first ascending).
    static func isOrdered(_ texts: [String?], by sort: SortKey, reference: Reference) -> Bool {
        func key(_ text: String?) -> String? {
            sort.caseInsensitive ? text.map { $0.folding(options: .caseInsensitive, locale: nil) } : text
        }
        return zip(texts, texts.dropFirst()).allSatisfy { a, b in
            let (x, y) = sort.ascending ? (key(a), key(b)) : (key(b), key(a))
            guard let x else { return true }
            guard let y else { return false }
            return reference.compare(x, y) != .orderedDescending
        }
    }

    static func run(seed: UInt64) throws {
        print("StringOrderFetchTests: seed \(seed) (replay with STRATA_STRING_FETCH_SEED=\(seed))")
        let directories = [try TemporaryDirectory(), try TemporaryDirectory()]
        defer { for directory in directories { directory.remove() } }
        let stores = [try PersistentStore.open(at: directories[0].path, schema: schema(indexed: false)),
                      try PersistentStore.open(at: directories[1].path, schema: schema(indexed: true))]
        defer { for store in stores { try? store.close() } }
        let populated = try stores.map { try populate($0, seed: seed) }
        let model = populated[0].1
        #expect(populated[1].1 == model)
        var rng = SplitMix64(seed: seed &+ 1)
        let keys = TroubleStrings.strings(30, &rng) + model.values.compactMap { $0 }.prefix(30)
        var served = 0
        let reference = Reference()
        for i in 0..<requests {
            let (request, matches) = try request(&rng, keys: keys, reference: reference)
            let what = "seed \(seed) #\(i): \(request.predicate.map { TroubleStrings.scalars($0.predicateFormat) } ?? "<all>") sort \(request.sortKeys.map { "\($0.ascending ? "↑" : "↓")\($0.caseInsensitive ? "ci" : "")" })"
            let results = try populated.map { context, _ in
                try context.performAndWait { try context.fetch(request).map { (try $0.int("n")!, try $0.string("text")) } }
            }
            let strategy = try stores[1].fetchStrategy(request)
            if strategy.lookupIndex != nil || strategy.orderIndex != nil || strategy.probedIndex != nil { served += 1 }
            #expect(results[1].map(\.0) == results[0].map(\.0), "indexed vs scanned: \(what)")
            let expected = Set(model.filter { matches($0.value) }.keys)
            #expect(Set(results[0].map(\.0)) == expected, "scanned vs the model: \(what)")
            if let sort = request.sortKeys.first {
                #expect(isOrdered(results[0].map(\.1), by: sort, reference: reference), "scanned order: \(what)")
            }
        }
        #expect(served > requests / 4, "the index served \(served) of \(requests) requests")
    }

    @Test func indexedAndScannedFetchesAgreeOnUnicodeStrings() throws {
        let fixed = testKnob("STRATA_STRING_FETCH_SEED", default: -1)
        for _ in 0..<(fixed >= 0 ? 1 : Self.cases) {
            try Self.run(seed: fixed >= 0 ? UInt64(fixed) : UInt64.random(in: 0...UInt64(Int.max)))
        }
    }
}
