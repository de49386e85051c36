/// A stable merge sort of the indexes `0..<count` that can stop part way: runs of
/// ``runLength`` indexes are sorted in place, then merged pairwise pass after pass, and the
/// caller is told of the work done after every run and every ``stepLength`` merged indexes.
///
/// An asynchronous fetch sorts its matches with it, so that a sort of a million rows
/// reports progress and notices cancellation every few hundred microseconds instead of
/// running for a quarter of a second unchecked.
enum IndexMergeSort {
    /// Indexes sorted at once before merging begins.
    static let runLength = 512
    /// Merged indexes between two reports of work.
    static let stepLength = 8_192

    /// The passes over the indexes that sorting `count` of them makes: sorting the runs
    /// counts as log₂ of the run length, and each merge pass as one.
    static func passes(count: Int) -> Int {
        guard count > 1 else { return 0 }
        var runPasses = 0
        while 1 << runPasses < min(count, runLength) { runPasses += 1 }
        var mergePasses = 0
        var width = runLength
        while width < count {
            width *= 2
            mergePasses += 1
        }
        return runPasses + mergePasses
    }

    /// The work of sorting `count` indexes, in units of one index placed by one pass:
    /// what ``sorted(count:by:step:)`` reports in all.
    static func work(count: Int) -> Int { count * passes(count: count) }

    /// The indexes `0..<count` in the order `areInIncreasingOrder` gives (stable).
    ///
    /// - Parameters:
    ///   - areInIncreasingOrder: a strict weak order on indexes.
    ///   - step: told the units of work done since its last call (at most
    ///     `runLength × passes` or ``stepLength`` at once); returning `false` stops the sort.
    /// - Returns: the sorted indexes, or `nil` when `step` stopped it.
    /// - Complexity: O(n log n) comparisons; two arrays of `count` indexes.
    static func sorted(count: Int, by areInIncreasingOrder: (Int, Int) -> Bool, step: (Int) -> Bool) -> [Int]? {
        var current = Array(0..<count)
        guard count > 1 else { return current }
        let runPasses = passes(count: min(count, runLength))
        var start = 0
        while start < count {
            let end = min(start + runLength, count)
            current[start..<end].sort(by: areInIncreasingOrder)
            if !step((end - start) * runPasses) { return nil }
            start = end
        }
        guard count > runLength else { return current }
        var other = [Int](repeating: 0, count: count)
        var width = runLength
        while width < count {
            let finished = current.withUnsafeBufferPointer { source in
                other.withUnsafeMutableBufferPointer { target in
                    mergePass(source, into: target, width: width, by: areInIncreasingOrder, step: step)
                }
            }
            if !finished { return nil }
            swap(&current, &other)
            width *= 2
        }
        return current
    }

    /// Merges each pair of sorted runs of `width` indexes of `source` into `target`.
    private static func mergePass(_ source: UnsafeBufferPointer<Int>, into target: UnsafeMutableBufferPointer<Int>, width: Int,
                                  by less: (Int, Int) -> Bool, step: (Int) -> Bool) -> Bool {
        let count = source.count
        var out = 0
        var reported = 0
        var low = 0
        while low < count {
            let middle = min(low + width, count), high = min(low + 2 * width, count)
            var a = low, b = middle
            while a < middle || b < high {
                // Merge until the next report is due (or the pair is done).
                let limit = min(out + (stepLength - (out - reported)), count)
                while out < limit {
                    if a < middle && (b == high || !less(source[b], source[a])) {
                        target[out] = source[a]
                        a += 1
                    } else if b < high {
                        target[out] = source[b]
                        b += 1
                    } else {
                        break
                    }
                    out += 1
                }
                if out - reported >= stepLength {
                    if !step(out - reported) { return false }
                    reported = out
                }
            }
            low = high
        }
        return out == reported || step(out - reported)
    }
}
