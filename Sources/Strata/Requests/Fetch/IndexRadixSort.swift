/// Sorting a fetch's matches by one number (a date, a double, a bool) without comparing
/// them: a stable least-significant-digit radix sort of their indexes by the number's bits,
/// 11 bits a pass over the span of the values (five passes for a million dates 30 s apart).
/// The matches of a scan come in key order, so stability orders equal values by key, as the
/// merge sort's comparison does. A comparison sort of a million shuffled dates spends most of
/// its time on branches it mispredicts; this one has none on the data.
///
/// ``sorted(keys:as:step:)`` carries each key with its index through the passes, so that it
/// reads memory in order; ``sort(keys:into:scratch:step:)`` sorts in memory the caller gives
/// and looks the keys up by index.
///
/// It reports the same work to `step` as ``IndexMergeSort`` would for as many indexes, spread
/// over its passes, so that an asynchronous fetch's progress and cancellation behave alike.
enum IndexRadixSort {
    /// Indexes placed between two reports of work.
    static let block = 2_048

    /// The indexes `0..<keys.count` in ascending order of `keys`, equal keys in index order,
    /// as `Position`s: `UInt32` indexes take half the memory of `Int` ones.
    ///
    /// Every pass carries each key with its index, less the smallest key (in 4 bytes when the
    /// span of the keys fits them), so the keys are read in order, once from `keys` and then
    /// from the pass before. ``sort(keys:into:scratch:step:)`` instead looks each index's key
    /// up in `keys` in every pass after the first: a random read, which misses every cache
    /// once the keys outgrow them (80 MB at ten million). The carried keys cost as much memory
    /// again as the two arrays of indexes, and `keys` is let go once they are read.
    ///
    /// - Parameters:
    ///   - as: the type of the indexes, which must hold `keys.count - 1`.
    ///   - step: told the units of work done since its last call
    ///     (``IndexMergeSort/work(count:)`` in all, at most ``IndexMergeSort/stepLength`` at
    ///     once); returning `false` stops the sort.
    /// - Returns: the sorted indexes, or `nil` when `step` stopped it.
    /// - Complexity: O(n × ⌈b / 11⌉), b the bits of the largest key less the smallest.
    static func sorted<Position: FixedWidthInteger>(keys: consuming [UInt64], as: Position.Type,
                                                    step: (Int) -> Bool) -> [Position]? {
        let n = keys.count
        precondition(n == 0 || Position(exactly: n - 1) != nil, "\(n) keys do not fit \(Position.self) indexes")
        var work = WorkReport(total: IndexMergeSort.work(count: n))
        var low = UInt64.max, high = UInt64.min
        keys.withUnsafeBufferPointer { keys in
            for key in keys {
                low = min(low, key)
                high = max(high, key)
            }
        }
        let bits = n < 2 ? 0 : UInt64.bitWidth - (high - low).leadingZeroBitCount
        let passes = (bits + digitBits - 1) / digitBits
        // No two keys differ: index order.
        guard passes > 0 else { return work.report(1, of: 1, to: step) ? (0..<n).map { Position(truncatingIfNeeded: $0) } : nil }
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: passes << digitBits)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0)
        // The first read of the keys (1 of `passes + 1` parts of the work) takes every pass's
        // counts, as the placing passes read the carried keys.
        let parts = passes + 1
        if bits <= UInt32.bitWidth {
            var narrow = [UInt32](repeating: 0, count: n)
            let read = keys.withUnsafeBufferPointer { keys in
                narrow.withUnsafeMutableBufferPointer { narrow in
                    countDigits(n, passes: passes, counts: counts, key: { UInt32(truncatingIfNeeded: keys[$0] &- low) },
                                put: { narrow[$0] = $1 }, done: { work.report($0, of: parts * n, to: step) })
                }
            }
            guard read else { return nil }
            keys = []
            var spare = [UInt32](repeating: 0, count: n)
            return placeCarried(n, keys: &narrow, spare: &spare, counts: counts, passes: passes, as: Position.self,
                                done: { pass, placed in work.report((pass + 1) * n + placed, of: parts * n, to: step) })
        }
        let read = keys.withUnsafeMutableBufferPointer { keys in
            countDigits(n, passes: passes, counts: counts, key: { keys[$0] &- low }, put: { keys[$0] = $1 },
                        done: { work.report($0, of: parts * n, to: step) })
        }
        guard read else { return nil }
        var spare = [UInt64](repeating: 0, count: n)
        return placeCarried(n, keys: &keys, spare: &spare, counts: counts, passes: passes, as: Position.self,
                            done: { pass, placed in work.report((pass + 1) * n + placed, of: parts * n, to: step) })
    }

    /// Bits of the key sorted in each pass.
    private static let digitBits = IndexPairSort.digitBits

    /// A sort's work reported to its `step` in parts of at most ``IndexMergeSort/stepLength``
    /// units, `total` units in all.
    struct WorkReport {
        let total: Int
        var reported = 0

        /// Reports to `step` the work up to `done` of `all` parts of the total.
        /// - Returns: `false` when `step` stopped the sort.
        mutating func report(_ done: Int, of all: Int, to step: (Int) -> Bool) -> Bool {
            let target = all == 0 ? total : Int((Double(total) * Double(done) / Double(all)).rounded(.down))
            while reported < target {
                let units = min(IndexMergeSort.stepLength, target - reported)
                guard step(units) else { return false }
                reported += units
            }
            return true
        }
    }

    /// Reads the `n` keys `key(i)` in order, in blocks of ``block``: puts each with `put(i, key)`
    /// and counts its digit for each of the `passes` passes in `counts` (2¹¹ counts a pass).
    /// `done` is told the keys read so far after each block; returning `false` stops it.
    /// - Returns: `false` when `done` stopped it.
    @inline(__always)
    private static func countDigits<Key: FixedWidthInteger & UnsignedInteger>(
        _ n: Int, passes: Int, counts: UnsafeMutableBufferPointer<Int>, key: (Int) -> Key, put: (Int, Key) -> Void,
        done: (Int) -> Bool
    ) -> Bool {
        let mask = Key(1 << digitBits - 1)
        var i = 0
        while i < n {
            let end = min(i + block, n)
            while i < end {
                let k = key(i)
                put(i, k)
                var rest = k
                for pass in 0..<passes {
                    counts[pass &<< digitBits &+ Int(truncatingIfNeeded: rest & mask)] &+= 1
                    rest &>>= Key(digitBits)
                }
                i &+= 1
            }
            guard done(end) else { return false }
        }
        return true
    }

    /// The placing passes of ``sorted(keys:as:step:)``: each moves every key (from `keys`,
    /// counted in `counts`) with its index from one pair of arrays into the other, in the order
    /// of its digit. A pass whose digit is the same for every key is skipped, and the last
    /// pass places only the indexes. `done(pass, placed)` is told the keys placed so far in
    /// each pass (skipped ones included) after each block; returning `false` stops the sort.
    /// - Returns: the sorted indexes, or `nil` when `done` stopped it.
    private static func placeCarried<Key: FixedWidthInteger & UnsignedInteger, Position: FixedWidthInteger>(
        _ n: Int, keys: inout [Key], spare: inout [Key], counts: UnsafeMutableBufferPointer<Int>, passes: Int,
        as: Position.Type, done: (_ pass: Int, _ placed: Int) -> Bool
    ) -> [Position]? {
        let buckets = 1 << digitBits
        // The passes that move anything: some two keys differ in their digit.
        let moving = (0..<passes).filter { pass in counts[pass * buckets..<(pass + 1) * buckets].allSatisfy { $0 < n } }
        var order = [Position](repeating: 0, count: n)
        var scratch = [Position](repeating: 0, count: n)
        var inScratch = false, first = true
        for pass in 0..<passes {
            guard moving.contains(pass) else {
                guard done(pass, n) else { return nil }
                continue
            }
            let places = UnsafeMutableBufferPointer(rebasing: counts[pass * buckets..<(pass + 1) * buckets])
            var start = 0
            for b in 0..<buckets {
                let count = places[b]
                places[b] = start
                start += count
            }
            let last = pass == moving.last
            let finished = keys.withUnsafeBufferPointer { keys in
                spare.withUnsafeMutableBufferPointer { spare in
                    order.withUnsafeMutableBufferPointer { order in
                        scratch.withUnsafeMutableBufferPointer { scratch in
                            let (from, into) = inScratch ? (scratch, order) : (order, scratch)
                            var i = 0
                            while i < n {
                                let end = min(i + block, n)
                                place(i..<end, keys: keys.baseAddress!, positions: first ? nil : UnsafePointer(from.baseAddress!),
                                      intoKeys: last ? nil : spare.baseAddress!, positions: into.baseAddress!,
                                      at: places.baseAddress!, shift: pass * digitBits)
                                i = end
                                guard done(pass, end) else { return false }
                            }
                            return true
                        }
                    }
                }
            }
            guard finished else { return nil }
            swap(&keys, &spare)
            inScratch.toggle()
            first = false
        }
        return inScratch ? scratch : order
    }

    /// One block of a placing pass: the keys `range` of `keys` with their indexes (`positions`,
    /// or the keys' own indexes when `nil`), each at the next place of its digit (`places`, the
    /// next place of each digit on entry) in `intoKeys` (unless `nil`) and `intoPositions`. A
    /// function of its own, on plain pointers, so that the loop keeps everything in registers.
    @inline(never)
    private static func place<Key: FixedWidthInteger & UnsignedInteger, Position: FixedWidthInteger>(
        _ range: Range<Int>, keys: UnsafePointer<Key>, positions: UnsafePointer<Position>?,
        intoKeys: UnsafeMutablePointer<Key>?, positions intoPositions: UnsafeMutablePointer<Position>,
        at places: UnsafeMutablePointer<Int>, shift: Int
    ) {
        let mask = Key(1 << digitBits - 1), shift = Key(shift)
        for i in range {
            let key = keys[i]
            let digit = Int(truncatingIfNeeded: key &>> shift & mask)
            let place = places[digit]
            places[digit] = place &+ 1
            intoKeys?[place] = key
            intoPositions[place] = positions?[i] ?? Position(truncatingIfNeeded: i)
        }
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
        var work = WorkReport(total: IndexMergeSort.work(count: n))
        var source = UnsafeMutableBufferPointer(rebasing: order[0..<n])
        var target = UnsafeMutableBufferPointer(rebasing: scratch[0..<n])
        for i in 0..<n { source[i] = Position(truncatingIfNeeded: i) }
        guard n > 1 else { return work.report(1, of: 1, to: step) ? source : nil }
        var low = UInt64.max, high = UInt64.min
        for key in keys {
            low = min(low, key)
            high = max(high, key)
        }
        let bits = UInt64.bitWidth - (high - low).leadingZeroBitCount
        let passes = (bits + digitBits - 1) / digitBits
        guard passes > 0 else { return work.report(1, of: 1, to: step) ? source : nil }   // one value: index order
        let buckets = 1 << digitBits, mask = UInt64(buckets - 1)
        var counts = [Int](repeating: 0, count: buckets)
        for pass in 0..<passes {
            let shift = UInt64(pass * digitBits)
            // Each pass reads the indexes twice (counting, then placing): both report their
            // work, so that a cancellation waits for at most one block of either.
            let finished = counts.withUnsafeMutableBufferPointer { counts in
                IndexPairSort.countingPass(UnsafeBufferPointer(source), into: target, counts: counts, block: block,
                                           digit: { Int((keys[Int($0)] &- low) >> shift & mask) },
                                           done: { work.report(2 * pass * n + $0, of: 2 * passes * n, to: step) })
            }
            guard finished else { return nil }
            swap(&source, &target)
        }
        return source
    }
}
