import Foundation

extension TableIndex {
    /// `entries` in index order when every value is a string (no nil), `nil` otherwise.
    ///
    /// Strings repeat: ten million to-do names hold about ten thousand distinct ones. So the
    /// entries are grouped by their UTF-8 bytes first (a hash table over one buffer of all
    /// the bytes), only the distinct strings are sorted (``StringOrder``: by their bytes where
    /// those decide, by comparing the strings where they do not), and the entries are placed
    /// group by group, each group in primary-key order. Groups of different bytes whose
    /// strings are equal (canonically equivalent spellings) are merged by primary key.
    ///
    /// Sorting the entries themselves by comparing them retained and released each string at
    /// every comparison and read it wherever it lay on the heap, and broke each tie between
    /// equal names by reading both entries' keys: at ten million names that was most of an
    /// index's build, and it grew faster than the rows.
    /// - Complexity: O(n) hashing plus O(d log d) comparisons of the d distinct strings, and
    ///   O(total bytes) memory.
    static func sortedByString(_ entries: [IndexEntry]) -> [IndexEntry]? {
        let n = entries.count
        guard n > 1 else { return entries }
        // Group numbers are 4 bytes.
        guard n <= Int(Int32.max) else { return nil }
        var bytes: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(n + 1)
        var keysAscend = true
        for (i, entry) in entries.enumerated() {
            guard case .string(let string) = entry.first else { return nil }
            starts.append(bytes.count)
            bytes.append(contentsOf: string.utf8)
            if i > 0 && entries[i - 1].primaryKey >= entry.primaryKey { keysAscend = false }
        }
        starts.append(bytes.count)
        let order = bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                entries.withUnsafeBufferPointer { entries in
                    StringGroups(bytes: bytes, starts: starts).order(entries, keysAscend: keysAscend)
                }
            }
        }
        return order.map { entries[$0] }
    }
}

/// The entries of a string index grouped by their strings' bytes
/// (``TableIndex/sortedByString(_:)``).
private struct StringGroups {
    /// Every entry's UTF-8 bytes, back to back.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where each entry's bytes start in `bytes`, and (last) where the last one's end.
    let starts: UnsafeBufferPointer<Int>

    /// The bytes of entry `i`.
    func text(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[starts[i]..<starts[i + 1]])
    }

    /// The positions of `entries` in index order.
    func order(_ entries: UnsafeBufferPointer<IndexEntry>, keysAscend: Bool) -> [Int] {
        let n = entries.count
        // Each entry's group, and each group's first entry, in order of first appearance.
        var groupOf = [Int32](repeating: 0, count: n)
        var firsts: [Int] = []
        // An open-addressing table of group numbers, at most half full: it grows with the
        // distinct strings, not with the entries.
        var slots = [Int32](repeating: -1, count: 1_024)
        for i in 0..<n {
            let piece = text(i)
            var slot = hash(piece) & (slots.count - 1)
            while true {
                let group = slots[slot]
                if group < 0 {
                    slots[slot] = Int32(firsts.count)
                    groupOf[i] = Int32(firsts.count)
                    firsts.append(i)
                    if 2 * firsts.count > slots.count { slots = rehashed(firsts, size: 2 * slots.count) }
                    break
                }
                if text(firsts[Int(group)]).elementsEqual(piece) {
                    groupOf[i] = group
                    break
                }
                slot = (slot + 1) & (slots.count - 1)
            }
        }
        slots = []
        // The distinct strings in order.
        var groups = Array(0..<firsts.count)
        groups.sort { a, b in compare(firsts[a], firsts[b], entries) == .orderedAscending }
        // Where each group's entries start, in that order; then every entry in its place, each
        // group's in entry order.
        var next = [Int](repeating: 0, count: firsts.count)
        for i in 0..<n { next[Int(groupOf[i])] += 1 }
        var start = 0
        var groupStarts: [Int] = []
        groupStarts.reserveCapacity(groups.count + 1)
        for group in groups {
            let count = next[group]
            next[group] = start
            groupStarts.append(start)
            start += count
        }
        groupStarts.append(n)
        var order = [Int](repeating: 0, count: n)
        for i in 0..<n {
            let group = Int(groupOf[i])
            order[next[group]] = i
            next[group] += 1
        }
        // Runs of groups with equal strings, or groups whose entries' keys may not ascend:
        // their entries by primary key.
        var first = 0
        while first < groups.count {
            var last = first
            while last + 1 < groups.count, compare(firsts[groups[first]], firsts[groups[last + 1]], entries) == .orderedSame {
                last += 1
            }
            if last > first || !keysAscend {
                order[groupStarts[first]..<groupStarts[last + 1]].sort { entries[$0].primaryKey < entries[$1].primaryKey }
            }
            first = last + 1
        }
        return order
    }

    /// The hash of `piece` (seeded per process, as every `Hasher`).
    func hash(_ piece: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(piece))
        return hasher.finalize()
    }

    /// A table of `size` slots (a power of two) holding the groups whose first entries are
    /// `firsts`.
    func rehashed(_ firsts: [Int], size: Int) -> [Int32] {
        var slots = [Int32](repeating: -1, count: size)
        for (group, first) in firsts.enumerated() {
            var slot = hash(text(first)) & (size - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(group)
        }
        return slots
    }

    /// The order of the strings of entries `i` and `j`.
    func compare(_ i: Int, _ j: Int, _ entries: UnsafeBufferPointer<IndexEntry>) -> ComparisonResult {
        if let decided = StringOrder.compareBytes(text(i), text(j), normalized: false) { return decided }
        guard case .string(let x) = entries[i].first, case .string(let y) = entries[j].first else {
            return IndexEntry.compare(entries[i].first, entries[j].first)
        }
        return StringOrder.compare(x, y)
    }
}
