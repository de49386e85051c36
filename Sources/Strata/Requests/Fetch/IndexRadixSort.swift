/// Sorting a fetch's matches by one number (a date, a double, a bool) without comparing
/// them: a stable least-significant-digit radix sort of their indexes by the number's bits,
/// 11 bits a pass over the span of the values (five passes for a million dates 30 s apart).
/// The matches of a scan come in key order, so stability orders equal values by key, as the
/// merge sort's comparison does. A comparison sort of a million shuffled dates spends most of
/// its time on branches it mispredicts; this one has none on the data.
///
/// It reports the same work to `step` as ``IndexMergeSort`` would for as many indexes, spread
/// over its passes, so that an asynchronous fetch's progress and cancellation behave alike.
enum IndexRadixSort {
    /// Indexes placed between two reports of work.
    static let block = 2_048

    /// The indexes `0..<keys.count` in ascending order of `keys`, equal keys in index order,
    /// as `Position`s: `UInt32` indexes take half the memory of `Int` ones.
    ///
    /// - Parameters:
    ///   - as: the type of the indexes, which must hold `keys.count - 1`.
    ///   - step: told the units of work done since its last call
    ///     (``IndexMergeSort/work(count:)`` in all, at most ``IndexMergeSort/stepLength`` at
    ///     once); returning `false` stops the sort.
    /// - Returns: the sorted indexes, or `nil` when `step` stopped it.
    /// - Complexity: O(n × ⌈b / 11⌉), b the bits of the largest key less the smallest; two
    ///   arrays of `n` indexes, as the merge sort.
    static func sorted<Position: FixedWidthInteger>(keys: [UInt64], as: Position.Type,
                                                    step: (Int) -> Bool) -> [Position]? {
        let n = keys.count
        var order = [Position](repeating: 0, count: n)
        var scratch = [Position](repeating: 0, count: n)
        let inScratch = keys.withUnsafeBufferPointer { keys in
            order.withUnsafeMutableBufferPointer { order in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    sort(keys: keys, into: order, scratch: scratch, step: step).map { $0.baseAddress == scratch.baseAddress }
                }
            }
        }
        guard let inScratch else { return nil }
        return inScratch ? scratch : order
    }

    /// Sorts the indexes `0..<keys.count` as ``sorted(keys:as:step:)`` does, in memory the
    /// caller provides (an asynchronous fetch of IDs sorts in the buffer of its result):
    /// `order` and `scratch` hold `keys.count` indexes each, and the sorted ones end up in
    /// one of them.
    ///
    /// - Returns: the one of `order` and `scratch` that holds the sorted indexes, or `nil`
    ///   when `step` stopped it.
    static func sort<Position: FixedWidthInteger>(keys: UnsafeBufferPointer<UInt64>, into order: UnsafeMutableBufferPointer<Position>,
                                                  scratch: UnsafeMutableBufferPointer<Position>,
                                                  step: (Int) -> Bool) -> UnsafeMutableBufferPointer<Position>? {
        let n = keys.count
        precondition(n == 0 || Position(exactly: n - 1) != nil, "\(n) keys do not fit \(Position.self) indexes")
        precondition(order.count >= n && scratch.count >= n, "no room for \(n) indexes")
        let total = IndexMergeSort.work(count: n)
        var reported = 0
        // Reports the work up to `done` of `all` parts of the total.
        func report(_ done: Int, of all: Int) -> Bool {
            let target = all == 0 ? total : Int((Double(total) * Double(done) / Double(all)).rounded(.down))
            while reported < target {
                let units = min(IndexMergeSort.stepLength, target - reported)
                guard step(units) else { return false }
                reported += units
            }
            return true
        }
        var source = UnsafeMutableBufferPointer(rebasing: order[0..<n])
        var target = UnsafeMutableBufferPointer(rebasing: scratch[0..<n])
        for i in 0..<n { source[i] = Position(truncatingIfNeeded: i) }
        guard n > 1 else { return report(1, of: 1) ? source : nil }
        var low = UInt64.max, high = UInt64.min
        for key in keys {
            low = min(low, key)
            high = max(high, key)
        }
        let bits = UInt64.bitWidth - (high - low).leadingZeroBitCount
        let digitBits = IndexPairSort.digitBits
        let passes = (bits + digitBits - 1) / digitBits
        guard passes > 0 else { return report(1, of: 1) ? source : nil }   // one value: index order
        let buckets = 1 << digitBits, mask = UInt64(buckets - 1)
        var counts = [Int](repeating: 0, count: buckets)
        for pass in 0..<passes {
            let shift = UInt64(pass * digitBits)
            // Each pass reads the indexes twice (counting, then placing): both report their
            // work, so that a cancellation waits for at most one block of either.
            let finished = counts.withUnsafeMutableBufferPointer { counts in
                IndexPairSort.countingPass(UnsafeBufferPointer(source), into: target, counts: counts, block: block,
                                           digit: { Int((keys[Int($0)] &- low) >> shift & mask) },
                                           done: { report(2 * pass * n + $0, of: 2 * passes * n) })
            }
            guard finished else { return nil }
            swap(&source, &target)
        }
        return source
    }
}
