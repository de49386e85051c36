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
