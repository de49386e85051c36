import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// The key probe's answers are the general path's for non-ASCII, mixed-case, precomposed
/// and decomposed string keys: its searches order strings as the index does (``StringOrder``),
/// and `==` is canonical equivalence.
@Suite struct KeyProbeUnicodeTests {
    /// Strings whose byte order and `String` order differ, or nearly do: "é" precomposed
    /// and decomposed, a combining mark after an ASCII letter that has no precomposed form,
    /// the Angstrom sign (NFC Å), uppercase against lowercase, prefixes, the empty string.
    static let names = [
        "\u{E9}", "e\u{301}", "e", "f", "E", "Z", "a", "A", "ex", "e\u{301}x", "\u{E9}x", "ex\u{301}", "x\u{301}",
        "ab", "a\u{301}b", "", "zz", "\u{C5}", "A\u{30A}", "\u{212B}", "e\u{301}\u{301}",
    ]

    /// Greek alpha with and without a combining tonos, on which Swift's own `String` order
    /// is not transitive (Swift 6.3.1: "α\u{301}241ex" < "α" is false though it is "ά241ex",
    /// and "ά" < "α"): an index sorted by `String`'s `<` was not in one order, and binary
    /// searches through it (the probe's, the planner's) missed rows a scan found.
    static let greek = ["\u{3B1}\u{301}", "\u{3AC}", "\u{3B1}", "a", "e\u{301}x", "\u{E9}", "ex"]

    static let schema = try! Schema {
        Entity("Word", indexes: [["text"]]) {
            Attribute("text", .string)
        }
    }

    static let plainSchema = try! Schema {
        Entity("Word") {
            Attribute("text", .string)
        }
    }

    /// Every name 20 times (a key equal to three of them matches 60, fewer than the probe's 64), among 4,000 filler words
    /// spelled with the same characters, so the index has several leaves.
    static func fill(_ store: PersistentStore, names: [String]) throws {
        let words = (0..<names.count * 20).map { names[$0 % names.count] }
            + (0..<4_000).map { names[$0 % names.count] + "\($0 % 500)" + names[($0 / 7) % names.count] }
        _ = try store.execute(BatchInsertRequest(entityName: "Word", count: words.count) { i, row in
            row["text"] = .string(words[(i * 7919) % words.count])
        })
    }

    @Test func probesAnswerAsTheGeneralPathOnUnicodeKeys() throws {
        try Self.compare(names: Self.names, keys: Self.names + ["\u{E9}\u{301}", "b", "e\u{301}7\u{E9}", "\u{E9}7e\u{301}", "Z3a", "a499\u{212B}"])
    }

    @Test func probesAnswerAsTheGeneralPathOnGreekTonos() throws {
        try Self.compare(names: Self.greek, keys: Self.greek)
    }

    /// Fills an indexed and an unindexed store with `names` and checks every key's probe
    /// and indexed fetch against the scan.
    static func compare(names: [String], keys: [String]) throws {
        let indexedDirectory = try TemporaryDirectory(), plainDirectory = try TemporaryDirectory()
        defer { indexedDirectory.remove(); plainDirectory.remove() }
        let indexed = try PersistentStore.open(at: indexedDirectory.path, schema: schema)
        let plain = try PersistentStore.open(at: plainDirectory.path, schema: plainSchema)
        defer { try? indexed.close(); try? plain.close() }
        try fill(indexed, names: names)
        try fill(plain, names: names)
        let context = ObjectContext(store: indexed), scanning = ObjectContext(store: plain)
        for key in keys {
            let request = FetchRequest(entityName: "Word", predicate: try ObjectPredicate(format: "text == %@", key))
            let expected = try scanning.performAndWait { try scanning.fetchObjectIDs(request).map(\.primaryKey) }
            let scalars = key.unicodeScalars.map { String($0.value, radix: 16) }
            guard let probe = KeyProbe(request, store: indexed), let probed = probe.keys(indexed.currentVersion, options: indexed.options) else {
                Issue.record("the probe did not answer text == \(scalars)")
                continue
            }
            #expect(probed == expected, "text == \(scalars)")
            #expect(try context.performAndWait { try context.fetchObjectIDs(request).map(\.primaryKey) } == expected, "text == \(scalars)")
        }
    }
}
