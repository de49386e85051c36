/// Sorting the value–key pairs of a single-number index (``TableIndex/numberLeaves(of:in:)``,
/// ``IndexPairColumns``) into index order: by value, then by primary key.
///
/// A table's rows come in ascending key order, so a *stable* sort by value alone gives that
/// order. A least-significant-digit radix sort is stable and compares nothing: a few passes
/// over the pairs (one for values within 2,048 of each other, such as ages or to-one keys;
/// five for dates a year apart, three when they are whole seconds), with no branch on the
/// data, where a comparison sort of a million shuffled values spends most of its time on
/// mispredicted branches.
enum IndexPairSort {
    /// Bits of the value sorted in each pass.
    static let digitBits = 11

    /// Above this many pairs the sort splits them by their most significant digit first: 64 Ki
    /// pairs are a megabyte, which stays in the cache through a bucket's passes.
    static let splitAbove = 1 << 16

    /// Sorts the pairs `values[i]`, `keys[i]` by value, stably: when the keys ascend, that is
    /// by value, then key. `low` and `high` are the smallest and largest
    /// ``IndexNumber/sortableBits`` of the values, and their lowest `zeros` bits are zero in
    /// every value (the sort skips them). Each pass places the pairs from one pair of columns
    /// into the other; `spareValues` and `spareKeys` have room for as many.
    ///
    /// Up to ``splitAbove`` pairs, or when one digit covers the values, every pass is over all
    /// the pairs, least significant digit first; every pass's counts are taken in one read of
    /// the values before the first pass, and a pass whose digit is the same for every pair is
    /// skipped. More pairs are first placed by their most significant digit, then each digit's
    /// bucket is sorted so on its own: a pass over all of ten million pairs writes to 2,048
    /// places spread over memory, and its cost per pair grew with the pairs; a bucket's passes
    /// stay in the cache (and dates that arrive about in order fill the first pass's buckets
    /// one after the other).
    ///
    /// - Returns: whether the sorted pairs are in the spare columns (else in `values`, `keys`).
    /// - Complexity: O(n × ⌈b / 11⌉), b the bits of `high` less `low`, less `zeros`.
    static func sort<Value: IndexNumber>(values: UnsafeMutableBufferPointer<Value>, keys: UnsafeMutableBufferPointer<Int64>,
                                         spareValues: UnsafeMutableBufferPointer<Value>,
                                         spareKeys: UnsafeMutableBufferPointer<Int64>, low: UInt64, high: UInt64,
                                         zeros: Int = 0) -> Bool {
        let n = values.count
        precondition(keys.count == n && spareValues.count >= n && spareKeys.count >= n, "index pairs of unequal lengths")
        guard n > 1, high > low else { return false }   // one value: key order is index order
        // Every value less `low` has `zeros` zero bits at the bottom too.
        let base = UInt64(min(zeros, (high - low).trailingZeroBitCount))
        let bits = UInt64.bitWidth - ((high - low) >> base).leadingZeroBitCount
        let passes = (bits + digitBits - 1) / digitBits
        let buckets = 1 << digitBits
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: passes * buckets)
        defer { counts.deallocate() }
        guard n > splitAbove && passes > 1 else {
            return leastDigitFirst(values: values, keys: keys, spareValues: spareValues, spareKeys: spareKeys,
                                   low: low, base: base, passes: passes, counts: counts)
        }
        // The most significant digit: every pair into the spare columns, by that digit.
        let top = base + UInt64((passes - 1) * digitBits), mask = UInt64(buckets - 1)
        let starts = UnsafeMutableBufferPointer(rebasing: counts[0..<buckets])
        starts.initialize(repeating: 0)
        for value in values { starts[Int((value.sortableBits &- low) &>> top & mask)] &+= 1 }
        var start = 0
        for b in 0..<buckets {
            let count = starts[b]
            starts[b] = start
            start += count
        }
        place(n, values: values.baseAddress!, keys: keys.baseAddress!,
              intoValues: spareValues.baseAddress!, keys: spareKeys.baseAddress!,
              at: starts.baseAddress!, low: low, shift: top)
        // Each bucket ends where the next one starts (`place` moved every start to there):
        // sorted by the other digits from the spare columns back into `values`, `keys`.
        let ends = Array(starts)
        var first = 0
        for end in ends {
            defer { first = end }
            guard end > first else { continue }
            let range = first..<end
            let sortedInPlace = leastDigitFirst(values: UnsafeMutableBufferPointer(rebasing: spareValues[range]),
                                                keys: UnsafeMutableBufferPointer(rebasing: spareKeys[range]),
                                                spareValues: UnsafeMutableBufferPointer(rebasing: values[range]),
                                                spareKeys: UnsafeMutableBufferPointer(rebasing: keys[range]),
                                                low: low, base: base, passes: passes - 1, counts: counts)
            if !sortedInPlace {
                (values.baseAddress! + first).update(from: spareValues.baseAddress! + first, count: range.count)
                (keys.baseAddress! + first).update(from: spareKeys.baseAddress! + first, count: range.count)
            }
        }
        return false
    }

    /// The passes of ``sort(values:keys:spareValues:spareKeys:low:high:zeros:)`` over the
    /// `passes` least significant digits above `base`, over every pair: their counts taken in
    /// one read of the values, a pass whose digit is the same for every pair skipped. `counts`
    /// has room for `passes` × 2,048.
    ///
    /// - Returns: whether the sorted pairs are in the spare columns (else in `values`, `keys`).
    private static func leastDigitFirst<Value: IndexNumber>(values: UnsafeMutableBufferPointer<Value>, keys: UnsafeMutableBufferPointer<Int64>,
                                                            spareValues: UnsafeMutableBufferPointer<Value>,
                                                            spareKeys: UnsafeMutableBufferPointer<Int64>, low: UInt64, base: UInt64,
                                                            passes: Int, counts: UnsafeMutableBufferPointer<Int>) -> Bool {
        let n = values.count
        guard n > 1 else { return false }
        let buckets = 1 << digitBits, mask = UInt64(buckets - 1)
        let counts = UnsafeMutableBufferPointer(rebasing: counts[0..<passes * buckets])
        counts.update(repeating: 0)
        if passes == 1 && base == 0 {
            // Ages and to-one keys: the shift by nothing would cost as much as the rest.
            for value in values { counts[Int((value.sortableBits &- low) & mask)] &+= 1 }
        } else if passes == 1 {
            for value in values { counts[Int((value.sortableBits &- low) &>> base & mask)] &+= 1 }
        } else {
            for value in values {
                let bits = (value.sortableBits &- low) &>> base
                for pass in 0..<passes { counts[pass &* buckets &+ Int(bits &>> UInt64(pass &* digitBits) & mask)] &+= 1 }
            }
        }
        var source = (values: values, keys: keys), target = (values: spareValues, keys: spareKeys)
        var inSpare = false
        for pass in 0..<passes {
            let shift = base + UInt64(pass * digitBits)
            let starts = UnsafeMutableBufferPointer(rebasing: counts[pass * buckets..<(pass + 1) * buckets])
            // Every pair has the same digit: the pass would leave them as they are.
            if starts[Int((source.values[0].sortableBits &- low) &>> shift & mask)] == n { continue }
            var start = 0
            for b in 0..<buckets {
                let count = starts[b]
                starts[b] = start
                start += count
            }
            place(n, values: source.values.baseAddress!, keys: source.keys.baseAddress!,
                  intoValues: target.values.baseAddress!, keys: target.keys.baseAddress!,
                  at: starts.baseAddress!, low: low, shift: shift)
            swap(&source, &target)
            inSpare.toggle()
        }
        return inSpare
    }

    /// One placing pass of ``sort(values:keys:spareValues:spareKeys:low:high:)``: the `n` pairs
    /// from `values`, `keys` into `intoValues`, `intoKeys`, each at the next place of its digit
    /// (`places`, the first place of each digit on entry). A function of its own, on plain
    /// pointers, so that the loop keeps everything in registers.
    @inline(never)
    static func place<Value: IndexNumber>(_ n: Int, values: UnsafePointer<Value>, keys: UnsafePointer<Int64>,
                                          intoValues: UnsafeMutablePointer<Value>, keys intoKeys: UnsafeMutablePointer<Int64>,
                                          at places: UnsafeMutablePointer<Int>, low: UInt64, shift: UInt64) {
        let mask = UInt64(1 << digitBits - 1)
        for i in 0..<n {
            let value = values[i]
            let digit = Int(truncatingIfNeeded: (value.sortableBits &- low) &>> shift & mask)
            let place = places[digit]
            places[digit] = place &+ 1
            intoValues[place] = value
            intoKeys[place] = keys[i]
        }
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
