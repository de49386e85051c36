import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// ``KeyHashTable`` answers as a plain dictionary of keys to primary keys does, through random
/// additions and removals that grow its segments, cut it again into more segments and empty
/// it; copies taken along the way keep their own contents (a version shares the segments it
/// did not change); and its string keys are equal exactly when ``StringOrder`` says so, with
/// the same hash for canonically equivalent spellings.
///
/// Knobs: `STRATA_KEY_HASH_STEPS` (operations per seed, default 20,000),
/// `STRATA_KEY_HASH_SEED` (replay one seed printed by a failure).
@Suite struct KeyHashTableTests {
    static let steps = testKnob("STRATA_KEY_HASH_STEPS", default: 20_000)

    static var seeds: [UInt64] {
        let replay = testKnob("STRATA_KEY_HASH_SEED", default: -1)
        return replay >= 0 ? [UInt64(replay)] : [1, 2, 3]
    }

    /// What the table should answer for `key` given the model's primary keys of it.
    static func expected(_ keys: [Int64]?) -> KeyMatch {
        guard let keys, !keys.isEmpty else { return .none }
        return keys.count == 1 ? .one(keys[0]) : .several
    }

    /// Checks every key of `pool` against `model`, and the table's own count.
    static func check<Key: KeyHashTableKey>(_ table: KeyHashTable<Key>, _ model: [Key: [Int64]], pool: [Key], _ label: String) -> Bool {
        guard table.count == model.filter({ !$0.value.isEmpty }).count else {
            Issue.record("\(label): \(table.count) keys, the model has \(model.filter { !$0.value.isEmpty }.count)")
            return false
        }
        for key in pool where table.match(key) != expected(model[key]) {
            Issue.record("\(label): \(key) is \(table.match(key)), the model has \(model[key] ?? [])")
            return false
        }
        return true
    }

    /// Random additions (with repeats, so keys get several entries) and removals; a removal
    /// that leaves one entry of several records it, as ``TableIndex`` does from its leaves.
    static func run<Key: KeyHashTableKey>(seed: UInt64, pool: [Key], expected: Int) {
        var random = SplitMix64(seed: seed)
        let label = "seed \(seed) (replay with STRATA_KEY_HASH_SEED=\(seed))"
        var table = KeyHashTable<Key>(expected: expected)
        var model: [Key: [Int64]] = [:]
        var nextKey: Int64 = 1
        var copies: [(table: KeyHashTable<Key>, model: [Key: [Int64]], step: Int)] = []
        for step in 0..<steps {
            // Phases: mostly additions, then mostly removals, so that segments grow and empty.
            let adding = (step / 4_000) % 2 == 0 ? random.next() % 10 < 8 : random.next() % 10 < 3
            let key = pool[Int(random.next() % UInt64(pool.count))]
            if adding {
                table.add(key, primaryKey: nextKey)
                model[key, default: []].append(nextKey)
                nextKey += 1
            } else if var keys = model[key], !keys.isEmpty {
                let removed = keys.remove(at: Int(random.next() % UInt64(keys.count)))
                model[key] = keys
                guard let left = table.remove(key) else {
                    Issue.record("\(label), step \(step): \(key) (primary key \(removed)) was not in the table")
                    return
                }
                #expect(left == (keys.count == 1), "\(label), step \(step)")
                if left { table.record(key, primaryKey: keys[0]) }
            } else {
                #expect(table.remove(key) == nil, "\(label), step \(step): \(key) has no entry")
            }
            if step % 997 == 0 {
                guard check(table, model, pool: pool, "\(label), step \(step)") else { return }
                copies.append((table, model, step))
            }
        }
        _ = check(table, model, pool: pool, "\(label), the end")
        for copy in copies {
            guard check(copy.table, copy.model, pool: pool, "\(label), the copy of step \(copy.step)") else { return }
        }
    }

    @Test(arguments: seeds) func stringKeysAgreeWithADictionary(seed: UInt64) {
        // Few distinct keys (so many repeats), then many (so segments grow and the table is cut again).
        Self.run(seed: seed, pool: (0..<40).map { "k\($0)" }, expected: 0)
        Self.run(seed: seed, pool: (0..<6_000).map { "person\($0 * 7919 % 6_000)@example.org" }, expected: 100)
    }

    @Test(arguments: seeds) func integerKeysAgreeWithADictionary(seed: UInt64) {
        Self.run(seed: seed, pool: (0..<5_000).map { Int64($0) * 1_000_003 - 2_500_000_000 }, expected: 5_000)
    }

    @Test func aTableCutForFewKeysIsCutAgainAsItGrows() {
        var table = KeyHashTable<Int64>(expected: 0)
        #expect(table.segments.count == 1)
        for value in 0..<Int64(100_000) { table.add(value, primaryKey: value + 1) }
        #expect(table.segments.count >= 100, "\(table.segments.count) segments for 100,000 keys")
        #expect(table.segments.map(\.count).max()! < 10_000, "no segment holds a large share of the keys")
        for value in stride(from: Int64(0), to: 100_000, by: 37) { #expect(table.match(value) == .one(value + 1)) }
        #expect(table.match(100_000) == .none)
    }

    /// Canonically equivalent spellings are one key, found by any of them: `==`, the hash and
    /// ``StringOrder`` agree on the trouble strings (precomposed and decomposed, the Angstrom
    /// sign, Hangul jamo against syllables, marks stacked in either order).
    @Test func canonicallyEquivalentStringsAreOneKey() {
        var random = SplitMix64(seed: 0x6B65_7973)
        let strings = TroubleStrings.strings(400, &random, maxPieces: 4)
        var table = KeyHashTable<String>(expected: 0)
        var model: [String: [Int64]] = [:]
        for (position, string) in strings.enumerated() {
            table.add(string, primaryKey: Int64(position + 1))
            model[string, default: []].append(Int64(position + 1))
        }
        let s = TroubleStrings.scalars
        for a in strings {
            for b in strings where (StringOrder.compare(a, b) == .orderedSame) != (a == b) || (a == b && a.hashValue != b.hashValue) {
                Issue.record("\(s(a)) and \(s(b)): StringOrder \(StringOrder.compare(a, b).rawValue), == \(a == b), hashes \(a.hashValue) and \(b.hashValue)")
                return
            }
            let nfc = StringOrder.nfc(a), nfd = a.decomposedStringWithCanonicalMapping
            #expect(table.match(nfc) == Self.expected(model[a]), "\(s(a)) as NFC \(s(nfc))")
            #expect(table.match(nfd) == Self.expected(model[a]), "\(s(a)) as NFD \(s(nfd))")
        }
        #expect(table.count == Set(strings.map(StringOrder.nfc)).count)
    }
}
