import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The radix sort that builds single-number indexes must put value–key pairs in index order
/// (value, then key) exactly as a comparison sort does, for any values, gathered from chunks
/// with and without nulls; pairs whose keys do not ascend must still come out in that order
/// (a comparison sort then, as the radix sort's stability is what orders equal values by key).
@Suite struct IndexPairSortTests {
    /// `count` pairs with ascending keys (gaps included), values drawn by `value`, and about
    /// one in `nullEvery` rows without a value (none when 0).
    static func rows<Value>(_ count: Int, seed: UInt64, nullEvery: UInt64 = 0,
                            _ value: (inout SplitMix64) -> Value) -> [(value: Value, key: Int64, valid: Bool)] {
        var random = SplitMix64(seed: seed)
        var key: Int64 = -50
        return (0..<count).map { _ in
            key += Int64(random.next() % 3) + 1
            let valid = nullEvery == 0 || random.next() % nullEvery != 0
            return (value(&random), key, valid)
        }
    }

    /// `rows` gathered in chunks of `chunk` rows (a chunk with a null keeps a validity column,
    /// one without none), then sorted: the pairs in order and the keys of the nulls.
    static func gatheredAndSorted<Value: IndexNumber>(_ rows: [(value: Value, key: Int64, valid: Bool)],
                                                      chunk: Int) -> (values: [Value], keys: [Int64], nulls: [Int64], unordered: Bool) {
        var nulls: [Int64] = []
        var pairs = gathered(rows, chunk: chunk, nulls: &nulls)
        let unordered = pairs.unordered
        if !unordered { pairs.sort() }
        let count = pairs.count
        return (Array(pairs.values[0..<count]), Array(pairs.keys[0..<count]), nulls, unordered)
    }

    /// `rows` gathered in chunks of `chunk` rows (a chunk with a null keeps a validity column,
    /// one without none); the keys of the nulls are appended to `nulls`.
    static func gathered<Value: IndexNumber>(_ rows: [(value: Value, key: Int64, valid: Bool)],
                                             chunk: Int, nulls: inout [Int64]) -> IndexPairColumns<Value> {
        var pairs = IndexPairColumns<Value>(capacity: rows.count)
        var start = 0
        while start < rows.count {
            let part = rows[start..<min(start + chunk, rows.count)]
            let values = part.map(\.value), keys = part.map(\.key)
            let validity: [Bool]? = part.allSatisfy(\.valid) ? nil : part.map(\.valid)
            values.withUnsafeBufferPointer { values in
                keys.withUnsafeBufferPointer { keys in
                    pairs.append(values: values, keys: keys, validity: validity) { nulls.append($0) }
                }
            }
            start += chunk
        }
        return pairs
    }

    static func compared<Value: Comparable>(_ rows: [(value: Value, key: Int64, valid: Bool)]) -> [(value: Value, key: Int64)] {
        rows.filter(\.valid).map { ($0.value, $0.key) }.sorted { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }
    }

    @Test(arguments: [0, 1, 2, 100, 5_000]) func integersSortAsComparedWhateverTheirSpread(count: Int) {
        let draws: [(inout SplitMix64) -> Int64] = [
            { _ in 42 },                                                  // one value
            { Int64($0.next() % 300) },                                   // ages: one pass
            { Int64(bitPattern: $0.next()) },                             // any 64 bits: six passes
            { [Int64.min, Int64.max, 0, -1, 1][Int($0.next() % 5)] },     // the extremes
            { Int64($0.next() % 5_000) - 2_500 },                         // negative and positive
            { Int64($0.next() % 3) << 40 },                               // low digits all zero: passes skipped
        ]
        for (d, draw) in draws.enumerated() {
            for nullEvery: UInt64 in [0, 4] {
                let rows = Self.rows(count, seed: UInt64(count * 10 + d), nullEvery: nullEvery, draw)
                let expected = Self.compared(rows)
                for chunk in [1, 7, 1_024] {
                    let sorted = Self.gatheredAndSorted(rows, chunk: chunk)
                    #expect(sorted.values == expected.map(\.value) && sorted.keys == expected.map(\.key),
                            "draw \(d), nulls every \(nullEvery), chunks of \(chunk)")
                    #expect(sorted.nulls == rows.filter { !$0.valid }.map(\.key), "draw \(d)")
                    #expect(!sorted.unordered)
                }
            }
        }
    }

    @Test(arguments: [2, 100, 5_000]) func doublesSortAsComparedWithSignedZerosAsOneValue(count: Int) {
        let draws: [(inout SplitMix64) -> Double] = [
            { Double($0.next() % 1_000_000) * 30 + 7e8 },                 // dates 30 s apart
            { Double(bitPattern: $0.next() >> 2) * ($0.next() % 2 == 0 ? 1 : -1) },
            { [0.0, -0.0, 1.5, -1.5, .infinity, -.infinity, .leastNonzeroMagnitude][Int($0.next() % 7)] },
        ]
        for (d, draw) in draws.enumerated() {
            for nullEvery: UInt64 in [0, 3] {
                let rows = Self.rows(count, seed: UInt64(count * 10 + d), nullEvery: nullEvery, draw)
                let expected = Self.compared(rows)
                let sorted = Self.gatheredAndSorted(rows, chunk: 1_024)
                // Equal values (0.0 and -0.0 among them) in key order, each value as it was.
                #expect(sorted.keys == expected.map(\.key), "draw \(d), nulls every \(nullEvery)")
                #expect(sorted.values.map(\.bitPattern) == expected.map(\.value.bitPattern), "draw \(d)")
            }
        }
    }

    /// Above ``IndexPairSort/splitAbove`` pairs the sort places them by their most
    /// significant digit first and sorts each bucket on its own: every kind of spread, with
    /// buckets of one pair, buckets whose lower digits are all alike (passes skipped, the
    /// pairs left in the spare columns) and dates that arrive about in order.
    @Test func largeSortsSplitByTheirTopDigitFirst() {
        let count = IndexPairSort.splitAbove * 2 + 123
        let integers: [(inout SplitMix64) -> Int64] = [
            { Int64(bitPattern: $0.next()) },                             // any 64 bits
            { Int64($0.next() % 3) << 40 | Int64($0.next() % 2) },       // lower digits mostly alike
            { Int64($0.next() % 5_000) - 2_500 },                         // one digit and a bit
            { [Int64.min, Int64.max, 0, -1, 1][Int($0.next() % 5)] },     // buckets of the extremes
        ]
        for (d, draw) in integers.enumerated() {
            let rows = Self.rows(count, seed: UInt64(d + 900), nullEvery: d == 0 ? 5 : 0, draw)
            let expected = Self.compared(rows)
            let sorted = Self.gatheredAndSorted(rows, chunk: 4_096)
            let wrong = expected.indices.first { sorted.values[$0] != expected[$0].value || sorted.keys[$0] != expected[$0].key }
            #expect(sorted.values.count == expected.count && wrong == nil, "integers, draw \(d): pair \(wrong ?? -1) out of place")
        }
        // Millisecond dates about 30 s apart with up to an hour of jitter, as to-do items are
        // created; and doubles of every sign and size.
        var row = 0.0
        let doubles: [(inout SplitMix64) -> Double] = [
            { row += 30; return 1.7e9 + row + Double($0.next() % 3_600_000) / 1_000 },
            { Double(bitPattern: $0.next() >> 2) * ($0.next() % 2 == 0 ? 1 : -1) },
        ]
        for (d, draw) in doubles.enumerated() {
            let rows = Self.rows(count, seed: UInt64(d + 950), draw)
            let expected = Self.compared(rows)
            let sorted = Self.gatheredAndSorted(rows, chunk: 4_096)
            let wrong = expected.indices.first {
                sorted.values[$0].bitPattern != expected[$0].value.bitPattern || sorted.keys[$0] != expected[$0].key
            }
            #expect(sorted.values.count == expected.count && wrong == nil, "doubles, draw \(d): pair \(wrong ?? -1) out of place")
        }
    }

    @Test func aNaNIsNoted() {
        var rows = Self.rows(100, seed: 5) { Double($0.next() % 10) }
        #expect(!Self.gatheredAndSorted(rows, chunk: 30).unordered)
        rows[77].value = .nan
        #expect(Self.gatheredAndSorted(rows, chunk: 30).unordered)
        rows[77].valid = false   // a null row's value is not read
        #expect(!Self.gatheredAndSorted(rows, chunk: 30).unordered)
    }

    @Test func pairsWhoseKeysDoNotAscendAreSortedByComparison() {
        // Within a chunk, across chunks, across a null, and a repeated key.
        let cases: [[(value: Int64, key: Int64, valid: Bool)]] = [
            [(5, 1, true), (3, 3, true), (4, 2, true), (1, 4, true), (3, 0, true)],
            [(2, 10, true), (1, 11, true), (7, 12, true), (2, 3, true), (1, 4, true), (0, 5, true)],
            [(2, 10, true), (1, 11, false), (7, 9, true), (1, 12, true)],
            [(2, 1, true), (1, 1, true)],
        ]
        for (c, rows) in cases.enumerated() {
            for chunk in [1, 3, 100] {
                var nulls: [Int64] = []
                var pairs = Self.gathered(rows, chunk: chunk, nulls: &nulls)
                let ascending = pairs.ascending
                #expect(!ascending, "case \(c), chunks of \(chunk)")
                pairs.sort()
                let expected = Self.compared(rows)
                let values = Array(pairs.values[0..<pairs.count]), keys = Array(pairs.keys[0..<pairs.count])
                #expect(values == expected.map(\.value) && keys == expected.map(\.key), "case \(c), chunks of \(chunk)")
            }
        }
    }
}
