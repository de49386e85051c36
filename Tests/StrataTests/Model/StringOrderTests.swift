import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// ``StringOrder`` is one total order: antisymmetric, transitive, equal exactly when `==`
/// says so, and the same as comparing the NFC forms' scalars (its definition), on random
/// strings full of combining marks, canonical equivalents and Hangul.
///
/// Knobs: `STRATA_STRING_ORDER_STRINGS` (strings per seed, default 300; every pair and
/// 20,000 triples are checked), `STRATA_STRING_ORDER_CASES` (seeds, default 2),
/// `STRATA_STRING_ORDER_SEED` (replay one seed printed by a failure).
@Suite struct StringOrderTests {
    static let count = testKnob("STRATA_STRING_ORDER_STRINGS", default: 300)
    static let cases = testKnob("STRATA_STRING_ORDER_CASES", default: 2)

    /// NFC as defined: canonical decomposition, then composition (Foundation's
    /// `precomposedStringWithCanonicalMapping` alone misses some compositions).
    static func nfc(_ string: String) -> [UInt32] {
        string.decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
    }

    /// The definition: the NFC forms' scalar values, lexicographically.
    static func reference(_ a: String, _ b: String) -> ComparisonResult {
        let x = nfc(a), y = nfc(b)
        if x == y { return .orderedSame }
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    static func flipped(_ result: ComparisonResult) -> ComparisonResult {
        ComparisonResult(rawValue: -result.rawValue)!
    }

    /// Every property on `strings`; the first violation of each kind is recorded.
    static func check(_ strings: [String], _ rng: inout SplitMix64, seed: UInt64,
                      compare: (String, String) -> ComparisonResult) {
        let s = TroubleStrings.scalars
        let replay = "seed \(seed) (replay with STRATA_STRING_ORDER_SEED=\(seed))"
        var results: [[ComparisonResult]] = []
        for a in strings { results.append(strings.map { compare(a, $0) }) }
        pairs: for i in strings.indices {
            for j in strings.indices {
                let (a, b, result) = (strings[i], strings[j], results[i][j])
                guard result == flipped(results[j][i]) else {
                    Issue.record("not antisymmetric: \(s(a)) vs \(s(b)) is \(result.rawValue), reversed \(results[j][i].rawValue); \(replay)")
                    break pairs
                }
                guard (result == .orderedSame) == (a == b) else {
                    Issue.record("not consistent with ==: \(s(a)) vs \(s(b)) is \(result.rawValue), == is \(a == b); \(replay)")
                    break pairs
                }
                guard result == reference(a, b) else {
                    Issue.record("not the NFC scalar order: \(s(a)) vs \(s(b)) is \(result.rawValue), NFC gives \(reference(a, b).rawValue); \(replay)")
                    break pairs
                }
            }
        }
        // Transitivity over random triples (a ≤ b and b ≤ c imply a ≤ c, strictly if either is).
        for _ in 0..<20_000 {
            let i = Int.random(in: strings.indices, using: &rng), j = Int.random(in: strings.indices, using: &rng),
                k = Int.random(in: strings.indices, using: &rng)
            let ab = results[i][j], bc = results[j][k], ac = results[i][k]
            guard ab != .orderedDescending, bc != .orderedDescending else { continue }
            let expected: ComparisonResult = ab == .orderedSame && bc == .orderedSame ? .orderedSame : .orderedAscending
            guard ac == expected else {
                Issue.record("not transitive: \(s(strings[i])) ≤ \(s(strings[j])) ≤ \(s(strings[k])) but the first vs the last is \(ac.rawValue); \(replay)")
                break
            }
        }
        // A sort by it leaves every pair in order.
        let sorted = strings.sorted { compare($0, $1) == .orderedAscending }
        for (a, b) in zip(sorted, sorted.dropFirst()) where compare(a, b) == .orderedDescending {
            Issue.record("sorted out of order: \(s(a)) before \(s(b)); \(replay)")
            break
        }
    }

    @Test func isATotalOrderConsistentWithEquality() {
        let fixed = testKnob("STRATA_STRING_ORDER_SEED", default: -1)
        for _ in 0..<(fixed >= 0 ? 1 : Self.cases) {
            let seed = fixed >= 0 ? UInt64(fixed) : UInt64.random(in: 0...UInt64(Int.max))
            print("StringOrderTests: seed \(seed)")
            var rng = SplitMix64(seed: seed)
            let strings = TroubleStrings.strings(Self.count, &rng) + ["\u{3B1}\u{301}241ex", "\u{3B1}", "\u{3AC}", ""]
            Self.check(strings, &rng, seed: seed, compare: StringOrder.compare)
        }
    }

    /// The strings on which Swift 6.3.1's `String <` is not transitive, in this order.
    @Test func greekTonosOrdersByItsComposedForm() {
        let a = "\u{3B1}\u{301}241ex", b = "\u{3B1}", c = "\u{3AC}"
        #expect(StringOrder.compare(a, b) == .orderedAscending, "ά241ex (U+03AC…) before α (U+03B1)")
        #expect(StringOrder.compare(c, b) == .orderedAscending)
        #expect(StringOrder.compare(c, a) == .orderedAscending, "ά is a proper prefix of ά241ex")
        #expect(StringOrder.compare("\u{3B1}\u{301}", c) == .orderedSame)
    }

    /// The byte path's edges: equal bytes, a decomposed letter against a later ASCII one,
    /// Latin-1 (two-byte) scalars, a prefix followed by a mark, a difference inside a
    /// two-byte scalar, and reordered marks.
    @Test func bytePathEdges() {
        let cases: [(String, String, ComparisonResult)] = [
            ("abc", "abc", .orderedSame), ("", "", .orderedSame), ("", "a", .orderedAscending),
            ("ab", "abc", .orderedAscending), ("abd", "abc", .orderedDescending),
            ("e\u{301}", "f", .orderedDescending), ("ae\u{301}", "af", .orderedDescending),
            ("\u{E9}", "\u{E8}", .orderedDescending), ("\u{E9}x", "\u{EA}", .orderedAscending),
            ("\u{E9}", "e\u{301}", .orderedSame), ("\u{E9}b", "e\u{301}a", .orderedDescending),
            ("e", "e\u{301}", .orderedAscending), ("\u{3B1}", "\u{3B1}\u{301}", .orderedDescending),
            ("\u{1E0A}\u{323}", "D\u{323}\u{307}", .orderedSame), ("\u{AC00}", "\u{1100}\u{1161}", .orderedSame),
            ("\u{1100}\u{1161}\u{11A8}", "\u{AC00}", .orderedDescending), ("\u{212B}", "\u{C5}", .orderedSame),
            ("a\u{301}\u{323}", "a\u{323}\u{301}", .orderedSame), ("\u{FF}", "\u{100}", .orderedAscending),
            ("\u{AC00}\u{11A8}", "\u{AC01}", .orderedSame), ("\u{AC00}\u{11A8}", "\u{AC00}", .orderedDescending),
            ("x\u{AC00}\u{11A8}y", "x\u{AC01}z", .orderedAscending),
        ]
        for (a, b, expected) in cases {
            #expect(StringOrder.compare(a, b) == expected, "\(TroubleStrings.scalars(a)) vs \(TroubleStrings.scalars(b))")
            #expect(StringOrder.compare(b, a) == Self.flipped(expected), "\(TroubleStrings.scalars(b)) vs \(TroubleStrings.scalars(a))")
            #expect(Self.reference(a, b) == expected, "the reference agrees: \(TroubleStrings.scalars(a)) vs \(TroubleStrings.scalars(b))")
        }
    }
}
