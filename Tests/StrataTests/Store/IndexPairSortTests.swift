import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The radix sort that builds single-number indexes must put value–key pairs in index order
/// (value, then key) exactly as a comparison sort does, for any values, and must refuse pairs
/// whose keys are not ascending (its stability is what orders equal values by key).
@Suite struct IndexPairSortTests {
    /// `count` pairs with ascending keys (gaps included) and values drawn by `value`.
    static func pairs<Value>(_ count: Int, seed: UInt64, _ value: (inout SplitMix64) -> Value) -> [(value: Value, key: Int64)] {
        var random = SplitMix64(seed: seed)
        var key: Int64 = -50
        return (0..<count).map { _ in
            key += Int64(random.next() % 3) + 1
            return (value(&random), key)
        }
    }

    static func compared<Value: Comparable>(_ pairs: [(value: Value, key: Int64)]) -> [(value: Value, key: Int64)] {
        pairs.sorted { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }
    }

    @Test(arguments: [0, 1, 2, 100, 5_000]) func integersSortAsComparedWhateverTheirSpread(count: Int) {
        let draws: [(inout SplitMix64) -> Int64] = [
            { _ in 42 },                                                  // one value
            { Int64($0.next() % 300) },                                   // ages: one pass
            { Int64(bitPattern: $0.next()) },                             // any 64 bits: six passes
            { [Int64.min, Int64.max, 0, -1, 1][Int($0.next() % 5)] },     // the extremes
            { Int64($0.next() % 5_000) - 2_500 },                         // negative and positive
        ]
        for (d, draw) in draws.enumerated() {
            var sorted = Self.pairs(count, seed: UInt64(count * 10 + d), draw)
            let expected = Self.compared(sorted)
            #expect(IndexPairSort.sortByValue(&sorted, IndexPairSort.sortable))
            #expect(sorted.map(\.value) == expected.map(\.value) && sorted.map(\.key) == expected.map(\.key), "draw \(d)")
        }
    }

    @Test(arguments: [2, 100, 5_000]) func doublesSortAsComparedWithSignedZerosAsOneValue(count: Int) {
        let draws: [(inout SplitMix64) -> Double] = [
            { Double($0.next() % 1_000_000) * 30 + 7e8 },                 // dates 30 s apart
            { Double(bitPattern: $0.next() >> 2) * ($0.next() % 2 == 0 ? 1 : -1) },
            { [0.0, -0.0, 1.5, -1.5, .infinity, -.infinity, .leastNonzeroMagnitude][Int($0.next() % 7)] },
        ]
        for (d, draw) in draws.enumerated() {
            var sorted = Self.pairs(count, seed: UInt64(count * 10 + d), draw)
            let expected = Self.compared(sorted)
            #expect(IndexPairSort.sortByValue(&sorted, IndexPairSort.sortable))
            // Equal values (0.0 and -0.0 among them) in key order, each value as it was.
            #expect(sorted.map(\.key) == expected.map(\.key), "draw \(d)")
            #expect(sorted.map(\.value.bitPattern) == expected.map(\.value.bitPattern), "draw \(d)")
        }
    }

    @Test func pairsWhoseKeysAreNotAscendingAreLeftAsTheyWere() {
        var pairs: [(value: Int64, key: Int64)] = [(5, 1), (3, 3), (4, 2), (1, 4)]
        let before = pairs
        #expect(!IndexPairSort.sortByValue(&pairs, IndexPairSort.sortable))
        #expect(pairs.map(\.value) == before.map(\.value) && pairs.map(\.key) == before.map(\.key))
        var repeated: [(value: Int64, key: Int64)] = [(2, 1), (1, 1)]
        #expect(!IndexPairSort.sortByValue(&repeated, IndexPairSort.sortable))
    }
}
