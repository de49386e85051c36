import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A fetch sorted by one number sorts its matches with a radix sort when they are in key order:
/// it must give the merge sort's order exactly (equal values by index), report the same work
/// in steps no larger than the merge sort's, and stop when a step says so.
@Suite struct IndexRadixSortTests {
    /// What the merge sort gives for `values`, ascending or descending, ties by index.
    static func mergeSorted(_ values: [Double], ascending: Bool) -> [Int] {
        IndexMergeSort.sorted(count: values.count, by: { a, b in
            let (x, y) = (values[a], values[b])
            if x != y { return ascending ? x < y : x > y }
            return a < b
        }, step: { _ in true })!
    }

    static func radixSorted(_ values: [Double], ascending: Bool, steps: inout [Int]) -> [Int]? {
        let keys = values.map { ascending ? IndexPairSort.sortable($0) : ~IndexPairSort.sortable($0) }
        var seen: [Int] = []
        let sorted = IndexRadixSort.sorted(keys: keys, as: Int.self, step: { seen.append($0); return true })
        steps = seen
        // The fetch's 4-byte positions: the same order, the same work.
        var narrowSeen: [Int] = []
        let narrow = IndexRadixSort.sorted(keys: keys, as: UInt32.self, step: { narrowSeen.append($0); return true })
        guard narrow?.map(Int.init) == sorted, narrowSeen == seen else { return nil }
        return sorted
    }

    @Test(arguments: [0, 1, 2, 513, 20_000]) func ordersAsTheMergeSortAndReportsTheSameWork(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 3)
        let draws: [() -> Double] = [
            { Double(random.next() % 1_000_000) * 30 + 7e8 },             // dates 30 s apart
            { Double(random.next() % 4) },                                 // few values, many ties
            { [0.0, -0.0, -2.5, 2.5, .infinity, -.infinity][Int(random.next() % 6)] },
            { Double(bitPattern: random.next() >> 2) * (random.next() % 2 == 0 ? 1 : -1) },
            { 1.25 },                                                      // one value
        ]
        for (d, draw) in draws.enumerated() {
            let values = (0..<count).map { _ in draw() }
            for ascending in [true, false] {
                var steps: [Int] = []
                let sorted = Self.radixSorted(values, ascending: ascending, steps: &steps)
                #expect(sorted == Self.mergeSorted(values, ascending: ascending), "draw \(d), ascending \(ascending)")
                #expect(steps.reduce(0, +) == IndexMergeSort.work(count: count), "draw \(d)")
                #expect(steps.allSatisfy { $0 > 0 && $0 <= IndexMergeSort.stepLength }, "draw \(d)")
            }
        }
    }

    /// Keys of every span: within one digit, with the lowest digit the same in every key (a
    /// pass skipped), up to the largest span carried in 4 bytes, and beyond it. Both sorts
    /// give the stable order and report the same work.
    @Test(arguments: [2, 513, 20_000]) func ordersKeysOfEverySpanStably(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 17)
        let base: UInt64 = 0x1234_5678_9ABC
        let draws: [(String, () -> UInt64)] = [
            ("one digit", { base + random.next() % 2_000 }),
            ("low digit skipped", { base + (random.next() % 1_000) << 11 }),
            ("largest narrow span", { base + [0, UInt64(UInt32.max), random.next() % (1 << 32)][Int(random.next() % 3)] }),
            ("narrowest wide span", { base + [0, UInt64(UInt32.max) + 1, random.next() % (1 << 33)][Int(random.next() % 3)] }),
            ("whole range", { [UInt64.min, .max, random.next()][Int(random.next() % 3)] }),
        ]
        for (name, draw) in draws {
            let keys = (0..<count).map { _ in draw() }
            let expected = (0..<count).sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
            var carriedSteps: [Int] = [], lookedUpSteps: [Int] = []
            let carried = IndexRadixSort.sorted(keys: keys, as: UInt32.self, step: { carriedSteps.append($0); return true })
            var order = [UInt32](repeating: 0, count: count), scratch = order
            let lookedUp = keys.withUnsafeBufferPointer { keys in
                order.withUnsafeMutableBufferPointer { order in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        IndexRadixSort.sort(keys: keys, into: order, scratch: scratch, step: { lookedUpSteps.append($0); return true })
                            .map { Array($0) }
                    }
                }
            }
            #expect(carried?.map(Int.init) == expected, "\(name)")
            #expect(lookedUp?.map(Int.init) == expected, "\(name)")
            #expect(carriedSteps.reduce(0, +) == IndexMergeSort.work(count: count), "\(name)")
            #expect(lookedUpSteps.reduce(0, +) == IndexMergeSort.work(count: count), "\(name)")
        }
    }

    @Test func aStepThatSaysStopStopsTheSort() {
        var random = SplitMix64(seed: 11)
        let keys = (0..<50_000).map { _ in random.next() }
        var calls = 0
        let sorted = IndexRadixSort.sorted(keys: keys, as: UInt32.self) { _ in
            calls += 1
            return calls < 3
        }
        #expect(sorted == nil)
        #expect(calls == 3)
    }
}
