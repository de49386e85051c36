import Foundation
import PropertyBased
import Testing
@testable import Strata

/// The controller's chunked key list and section runs against plain arrays, over random
/// insertions and removals (enough to split chunks and to empty them).
@Suite struct OrderedKeysTests {
    static let operations = Generator<[UInt64], Shrink.None<[UInt64]>> { rng in
        (0..<Int.random(in: 1...6_000, using: &rng)).map { _ in rng.next() }
    }

    @Test func behavesLikeAnArray() async {
        await propertyCheck(count: 20, input: Self.operations) { operations in
            var keys = OrderedKeys((0..<Int64(operations.count % 3_000)).map { $0 * 2 })
            var model = keys.all
            for (step, operation) in operations.enumerated() {
                if operation % 3 == 0, !model.isEmpty {
                    let offset = Int(operation / 3 % UInt64(model.count))
                    keys.remove(at: offset)
                    model.remove(at: offset)
                } else {
                    let offset = Int(operation / 3 % UInt64(model.count + 1))
                    keys.insert(Int64(step), at: offset)
                    model.insert(Int64(step), at: offset)
                }
            }
            #expect(keys.count == model.count)
            #expect(keys.all == model)
            #expect(keys.chunks.allSatisfy { !$0.isEmpty && $0.count < 2 * OrderedKeys.chunkSize })
            if !model.isEmpty {
                let probe = Int(operations[0] % UInt64(model.count))
                #expect(keys[probe] == model[probe])
            }
        }
    }

    @Test func findsThePartitionPoint() {
        let sorted = OrderedKeys(Array(stride(from: Int64(0), to: 10_000, by: 3)))
        for target in [Int64(-1), 0, 1, 2, 3, 4_500, 9_998, 9_999, 20_000] {
            let expected = sorted.all.firstIndex { $0 >= target } ?? sorted.count
            #expect(sorted.partitionPoint { $0 < target } == expected, "target \(target)")
        }
        #expect(OrderedKeys().partitionPoint { _ in true } == 0)
    }

    @Test func sectionRunsFollowTheirNames() async {
        await propertyCheck(count: 50, input: Self.operations) { operations in
            let names = ["a", "b", "c"]
            var model: [String] = []
            var runs = SectionRuns()
            for operation in operations.prefix(400) {
                if operation % 3 == 0, !model.isEmpty {
                    let offset = Int(operation / 3 % UInt64(model.count))
                    model.remove(at: offset)
                    runs.remove(at: offset)
                } else {
                    let offset = Int(operation / 3 % UInt64(model.count + 1))
                    let name = names[Int(operation / 7 % 3)]
                    model.insert(name, at: offset)
                    runs.insert(name, at: offset)
                }
                #expect(runs == SectionRuns(model))
            }
        }
    }
}
