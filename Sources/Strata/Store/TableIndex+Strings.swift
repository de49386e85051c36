import Foundation
internal import StrataStorage

extension TableIndex {
    /// `entries` in index order when every value is a string (no nil), `nil` otherwise (see
    /// ``StringGroups`` for how).
    /// - Complexity: O(n) hashing plus O(d log d) comparisons of the d distinct strings, and
    ///   O(total bytes) memory.
    static func sortedByString(_ entries: [IndexEntry]) -> [IndexEntry]? {
        let n = entries.count
        guard n > 1 else { return entries }
        // Group numbers are 4 bytes.
        guard n <= Int(Int32.max) else { return nil }
        var texts = StringTexts(rows: n, bytes: 0)
        for entry in entries {
            guard case .string(let string) = entry.first else { return nil }
            texts.append(string.utf8, primaryKey: entry.primaryKey)
        }
        // A string's own bytes are well-formed UTF-8: the grouping always succeeds.
        guard let groups = texts.grouped() else { return nil }
        return groups.order.map { entries[$0] }
    }

    /// The leaves of a single-property index over strings, read straight from the columns'
    /// bytes: the entries of rows without a value (which sort first), then leaves of the
    /// rest in index order. `nil` for other types, or when a column's bytes are not
    /// well-formed UTF-8 (those take the general path, which decodes them as a fetch does).
    ///
    /// No string is made per row: the rows are grouped by their bytes, one string is made per
    /// distinct value, and every entry of a group shares it. Ten million to-do names hold about
    /// ten thousand distinct ones, so the index holds ten thousand strings instead of ten
    /// million, a key probe's hash table (``HashedKeys``) finds each group's run by comparing
    /// references, and letting go of the index frees no string per row.
    /// - Complexity: as ``sortedByString(_:)``.
    static func stringLeaves(of access: EntityLayout.ColumnAccess, in chunks: [TableChunk])
        -> (nils: [IndexEntry], leaves: [IndexLeaf])? {
        guard access.type == .string else { return nil }
        let read = [EntityLayout.primaryKeyColumn, access.column]
        var columns: [(keys: [Int64], bytes: ByteColumn, validity: [Bool]?)] = []
        columns.reserveCapacity(chunks.count)
        var rows = 0, size = 0
        for chunk in chunks {
            let some = chunk.someColumns(read)
            let column = some[access.column], keys = some.primaryKeys
            guard case .bytes(let bytes) = column.values, bytes.offsets.count == keys.count + 1 else { return nil }
            columns.append((keys, bytes, column.validity))
            rows += keys.count
            size += bytes.data.count
        }
        guard rows <= Int(Int32.max) else { return nil }
        var texts = StringTexts(rows: rows, bytes: size)
        var nils: [IndexEntry] = []
        for column in columns {
            column.bytes.offsets.withUnsafeBufferPointer { offsets in
                column.bytes.data.withUnsafeBufferPointer { data in
                    for (row, key) in column.keys.enumerated() {
                        if let validity = column.validity, !validity[row] {
                            nils.append(IndexEntry(first: .null, rest: [], primaryKey: key))
                            continue
                        }
                        texts.append(UnsafeBufferPointer(rebasing: data[Int(offsets[row])..<Int(offsets[row + 1])]), primaryKey: key)
                    }
                }
            }
        }
        columns = []
        guard let groups = texts.grouped() else { return nil }
        // Rows without a value come first, by key (the order they were gathered in when the
        // keys ascend, as they do).
        if !texts.keysAscend { nils.sort { $0.primaryKey < $1.primaryKey } }
        let values = groups.strings.map { AttributeValue.string($0) }
        let leaves = leafRanges(count: groups.order.count).map { range in
            var entries: [IndexEntry] = []
            var keys: [Int64] = []
            entries.reserveCapacity(range.count)
            keys.reserveCapacity(range.count)
            for position in groups.order[range] {
                let key = texts.primaryKeys[position]
                entries.append(IndexEntry(first: values[Int(groups.groupOf[position])], rest: [], primaryKey: key))
                keys.append(key)
            }
            return IndexLeaf(keys: keys, values: .entries(entries))
        }
        return (nils, leaves)
    }
}

/// The UTF-8 bytes of an index's strings, back to back, with their entries' primary keys
/// (``TableIndex/sortedByString(_:)``, ``TableIndex/stringLeaves(of:in:)``).
struct StringTexts {
    /// Every entry's bytes, back to back.
    private(set) var bytes: [UInt8] = []
    /// Where each entry's bytes start in `bytes`, and (last) where the last one's end.
    private(set) var starts: [Int] = [0]
    /// Each entry's primary key.
    private(set) var primaryKeys: [Int64] = []
    /// Whether every entry's key is above the one before.
    private(set) var keysAscend = true

    /// Room for `rows` entries of `bytes` bytes in all.
    init(rows: Int, bytes size: Int) {
        bytes.reserveCapacity(size)
        starts.reserveCapacity(rows + 1)
        primaryKeys.reserveCapacity(rows)
    }

    /// Adds an entry of `text`'s bytes with key `primaryKey`.
    mutating func append(_ text: some Collection<UInt8>, primaryKey: Int64) {
        bytes.append(contentsOf: text)
        starts.append(bytes.count)
        if let last = primaryKeys.last, last >= primaryKey { keysAscend = false }
        primaryKeys.append(primaryKey)
    }

    /// The entries grouped and ordered (``StringGroups``), or `nil` when some bytes are not
    /// well-formed UTF-8.
    func grouped() -> StringGroups? {
        bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                primaryKeys.withUnsafeBufferPointer { keys in
                    StringGroups(bytes: bytes, starts: starts, keys: keys, keysAscend: keysAscend)
                }
            }
        }
    }
}

/// The entries of a string index grouped by their strings' bytes, and in index order.
///
/// Strings repeat: ten million to-do names hold about ten thousand distinct ones. So the
/// entries are grouped by their UTF-8 bytes first (a hash table over one buffer of all the
/// bytes), only the distinct strings are sorted (``StringOrder``: by their bytes where those
/// decide, by comparing the strings where they do not), and the entries are placed group by
/// group, each group in primary-key order. Groups of different bytes whose strings are equal
/// (canonically equivalent spellings) are merged by primary key.
///
/// Sorting the entries themselves by comparing them retained and released each string at
/// every comparison and read it wherever it lay on the heap, and broke each tie between
/// equal names by reading both entries' keys: at ten million names that was most of an
/// index's build, and it grew faster than the rows.
struct StringGroups {
    /// The positions of the entries in index order.
    let order: [Int]
    /// Each entry's group.
    let groupOf: [Int32]
    /// Each group's string.
    let strings: [String]

    /// Groups the entries whose bytes are `bytes[starts[i]..<starts[i + 1]]` and whose
    /// primary keys are `keys` (ascending when `keysAscend`); `nil` when some bytes are not
    /// well-formed UTF-8.
    fileprivate init?(bytes: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int>,
                      keys: UnsafeBufferPointer<Int64>, keysAscend: Bool) {
        let n = keys.count
        func text(_ i: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[starts[i]..<starts[i + 1]])
        }
        // Each entry's group, and each group's first entry, in order of first appearance.
        var groupOf = [Int32](repeating: 0, count: n)
        var firsts: [Int] = []
        // An open-addressing table of group numbers, at most half full: it grows with the
        // distinct strings, not with the entries.
        var slots = [Int32](repeating: -1, count: 1_024)
        for i in 0..<n {
            let piece = text(i)
            var slot = Self.hash(piece) & (slots.count - 1)
            while true {
                let group = slots[slot]
                if group < 0 {
                    slots[slot] = Int32(firsts.count)
                    groupOf[i] = Int32(firsts.count)
                    firsts.append(i)
                    if 2 * firsts.count > slots.count { slots = Self.rehashed(firsts, size: 2 * slots.count, text: text) }
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
        // One string per group; byte order decides only for well-formed UTF-8.
        var strings: [String] = []
        strings.reserveCapacity(firsts.count)
        for first in firsts {
            guard let string = String(validating: text(first), as: UTF8.self) else { return nil }
            strings.append(string)
        }
        func compare(_ a: Int, _ b: Int) -> ComparisonResult {
            StringOrder.compareBytes(text(firsts[a]), text(firsts[b]), normalized: false) ?? StringOrder.compare(strings[a], strings[b])
        }
        // The distinct strings in order.
        var groups = Array(0..<firsts.count)
        groups.sort { compare($0, $1) == .orderedAscending }
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
            while last + 1 < groups.count, compare(groups[first], groups[last + 1]) == .orderedSame {
                last += 1
            }
            if last > first || !keysAscend {
                order[groupStarts[first]..<groupStarts[last + 1]].sort { keys[$0] < keys[$1] }
            }
            first = last + 1
        }
        self.order = order
        self.groupOf = groupOf
        self.strings = strings
    }

    /// The hash of `piece` (seeded per process, as every `Hasher`).
    private static func hash(_ piece: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(piece))
        return hasher.finalize()
    }

    /// A table of `size` slots (a power of two) holding the groups whose first entries are
    /// `firsts`.
    private static func rehashed(_ firsts: [Int], size: Int, text: (Int) -> UnsafeBufferPointer<UInt8>) -> [Int32] {
        var slots = [Int32](repeating: -1, count: size)
        for (group, first) in firsts.enumerated() {
            var slot = hash(text(first)) & (size - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(group)
        }
        return slots
    }
}
