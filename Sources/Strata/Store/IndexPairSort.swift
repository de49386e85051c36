/// Sorting the value–key pairs of a single-number index (``TableIndex/numberLeaves(of:in:)``)
/// into index order: by value, then by primary key.
///
/// A table's rows come in ascending key order, so a *stable* sort by value alone gives that
/// order. A least-significant-digit radix sort is stable and compares nothing: a few passes
/// over the pairs (one for values within 2,048 of each other, such as ages or to-one keys;
/// five for dates a year apart), with no branch on the data, where a comparison sort of a
/// million shuffled values spends most of its time on mispredicted branches.
enum IndexPairSort {
    /// Bits of the value sorted in each pass.
    static let digitBits = 11

    /// Sorts `pairs` by value, then key, when their keys are strictly ascending; `sortable`
    /// maps a value to an unsigned integer of the same order. Returns `false`, leaving
    /// `pairs` as they were, when the keys are not ascending (the caller sorts them another
    /// way).
    ///
    /// - Complexity: O(n × ⌈b / 11⌉), b the bits of the largest value less the smallest.
    static func sortByValue<Value>(_ pairs: inout [(value: Value, key: Int64)], _ sortable: (Value) -> UInt64) -> Bool {
        let n = pairs.count
        guard n > 1 else { return true }
        var low = UInt64.max, high = UInt64.min
        let ascending = pairs.withUnsafeBufferPointer { p -> Bool in
            var previous = p[0].key
            for i in 0..<n {
                let value = sortable(p[i].value)
                low = min(low, value)
                high = max(high, value)
                if i > 0 {
                    guard p[i].key > previous else { return false }
                    previous = p[i].key
                }
            }
            return true
        }
        guard ascending else { return false }
        let bits = UInt64.bitWidth - (high - low).leadingZeroBitCount
        guard bits > 0 else { return true }   // one value: key order is index order
        let buckets = 1 << digitBits, mask = UInt64(buckets - 1)
        var scratch = pairs
        var counts = [Int](repeating: 0, count: buckets)
        var shift = 0
        while shift < bits {
            let digitShift = UInt64(shift)
            counts.withUnsafeMutableBufferPointer { counts in
                pairs.withUnsafeBufferPointer { source in
                    scratch.withUnsafeMutableBufferPointer { target in
                        _ = countingPass(source, into: target, counts: counts, block: n,
                                         digit: { Int((sortable($0.value) &- low) >> digitShift & mask) }, done: { _ in true })
                    }
                }
            }
            swap(&pairs, &scratch)
            shift += digitBits
        }
        return true
    }

    /// One pass of a stable counting sort: `source` placed into `target` in the order of
    /// `digit` (each in `0..<counts.count`), equal digits in their order in `source`.
    /// Counting and placing each go in blocks of `block` elements; after each block `done` is
    /// told the elements handled so far in the pass (counting handles the first
    /// `source.count`, placing the next), and returning `false` stops the pass.
    ///
    /// - Returns: `false` when `done` stopped it.
    @inline(__always)
    static func countingPass<Element>(_ source: UnsafeBufferPointer<Element>, into target: UnsafeMutableBufferPointer<Element>,
                                      counts: UnsafeMutableBufferPointer<Int>, block: Int, digit: (Element) -> Int,
                                      done: (Int) -> Bool) -> Bool {
        let n = source.count
        counts.update(repeating: 0)
        var i = 0
        while i < n {
            let end = min(i + block, n)
            while i < end {
                counts[digit(source[i])] += 1
                i += 1
            }
            if !done(end) { return false }
        }
        var start = 0
        for b in counts.indices {
            let count = counts[b]
            counts[b] = start
            start += count
        }
        i = 0
        while i < n {
            let end = min(i + block, n)
            while i < end {
                let element = source[i]
                let b = digit(element)
                target[counts[b]] = element
                counts[b] += 1
                i += 1
            }
            if !done(n + end) { return false }
        }
        return true
    }

    /// An integer's place in the order of unsigned integers.
    @inline(__always) static func sortable(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: value) ^ (1 << 63)
    }

    /// A double's (not NaN) place in the order of unsigned integers; -0.0 and 0.0 are one
    /// value, as they compare equal.
    @inline(__always) static func sortable(_ value: Double) -> UInt64 {
        let bits = (value == 0 ? 0.0 : value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }
}
