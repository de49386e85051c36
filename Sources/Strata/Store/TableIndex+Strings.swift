import Foundation
internal import StrataStorage

extension TableIndex {
    /// `entries` in index order when every value is a string (no nil), `nil` otherwise (see
    /// ``StringGroups`` for how).
    /// - Complexity: O(n) hashing plus O(d log d) comparisons of the d distinct strings, and
    ///   O(n + bytes of the distinct strings) memory.
    static func sortedByString(_ entries: [IndexEntry]) -> [IndexEntry]? {
        let n = entries.count
        guard n > 1 else { return entries }
        // Group numbers and positions are 4 bytes.
        guard n <= Int(Int32.max) else { return nil }
        var grouping = StringGrouping(rows: n)
        for entry in entries {
            guard case .string(var string) = entry.first else { return nil }
            string.withUTF8 { grouping.add($0, primaryKey: entry.primaryKey) }
        }
        // A string's own bytes are well-formed UTF-8: the grouping always succeeds.
        guard let groups = StringGroups(grouping) else { return nil }
        return groups.order.map { entries[Int($0)] }
    }

    /// The leaves of a single-property index over strings, read straight from the columns'
    /// bytes: the entries of rows without a value (which sort first), then leaves of the
    /// rest in index order. `nil` for other types, or when a column's bytes are not
    /// well-formed UTF-8 (those take the general path, which decodes them as a fetch does).
    ///
    /// No string is made per row, and no row's bytes are copied: each row's bytes are
    /// grouped where they lie in the column, one string is made per distinct value, and every
    /// entry of a group shares it. Ten million to-do names hold about ten thousand distinct
    /// ones, so the index holds ten thousand strings instead of ten million, a key probe's hash
    /// table (``HashedKeys``) finds each group's run by comparing references, and letting go
    /// of the index frees no string per row.
    /// - Complexity: as ``sortedByString(_:)``.
    static func stringLeaves(of access: EntityLayout.ColumnAccess, in chunks: [TableChunk])
        -> (nils: [IndexEntry], leaves: [IndexLeaf])? {
        guard access.type == .string else { return nil }
        let read = [EntityLayout.primaryKeyColumn, access.column]
        let rows = chunks.reduce(0) { $0 + $1.count }
        guard rows <= Int(Int32.max) else { return nil }
        var grouping = StringGrouping(rows: rows)
        var nils: [IndexEntry] = []
        for chunk in chunks {
            let some = chunk.someColumns(read)
            let column = some[access.column], keys = some.primaryKeys
            guard case .bytes(let bytes) = column.values, bytes.offsets.count == keys.count + 1 else { return nil }
            bytes.offsets.withUnsafeBufferPointer { offsets in
                bytes.data.withUnsafeBufferPointer { data in
                    for (row, key) in keys.enumerated() {
                        if let validity = column.validity, !validity[row] {
                            nils.append(IndexEntry(first: .null, rest: [], primaryKey: key))
                            continue
                        }
                        grouping.add(UnsafeBufferPointer(rebasing: data[Int(offsets[row])..<Int(offsets[row + 1])]), primaryKey: key)
                    }
                }
            }
        }
        guard let groups = StringGroups(grouping) else { return nil }
        // Rows without a value come first, by key (the order they were gathered in when the
        // keys ascend, as they do).
        if !grouping.keysAscend { nils.sort { $0.primaryKey < $1.primaryKey } }
        let leaves = leafRanges(count: groups.order.count).map { range in
            var values: [String] = []
            var keys: [Int64] = []
            values.reserveCapacity(range.count)
            keys.reserveCapacity(range.count)
            for position in groups.order[range] {
                values.append(groups.strings[Int(grouping.groupOf[Int(position)])])
                keys.append(grouping.primaryKeys[Int(position)])
            }
            return IndexLeaf(keys: keys, values: .strings(values))
        }
        return (nils, leaves)
    }
}

/// An index's strings grouped by their UTF-8 bytes as they are added: each entry's group and
/// primary key, and the bytes of each group's first string
/// (``TableIndex/sortedByString(_:)``, ``TableIndex/stringLeaves(of:in:)``).
///
/// Only the distinct strings' bytes are kept, so an entry costs 12 bytes whatever its
/// string's length: the groups are found through an open-addressing table of group numbers
/// (Swift's seeded `Hasher` over the bytes), at most half full, which grows with the
/// distinct strings, not with the entries.
struct StringGrouping {
    /// Each entry's group.
    private(set) var groupOf: [Int32] = []
    /// Each entry's primary key.
    private(set) var primaryKeys: [Int64] = []
    /// Whether every entry's key is above the one before.
    private(set) var keysAscend = true
    /// The bytes of each group's first string, back to back.
    private(set) var distinct: [UInt8] = []
    /// Where each group's bytes start in `distinct`, and (last) where the last one's end.
    private(set) var starts: [Int] = [0]
    /// Group numbers by hash; -1 where empty.
    private var slots = [Int32](repeating: -1, count: 1_024)

    /// Room for `rows` entries.
    init(rows: Int) {
        groupOf.reserveCapacity(rows)
        primaryKeys.reserveCapacity(rows)
    }

    /// The number of groups.
    var groupCount: Int { starts.count - 1 }

    /// The bytes of group `group`.
    func text(_ group: Int, in distinct: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: distinct[starts[group]..<starts[group + 1]])
    }

    /// Adds an entry whose string's bytes are `piece`, with key `primaryKey`.
    mutating func add(_ piece: UnsafeBufferPointer<UInt8>, primaryKey: Int64) {
        if let last = primaryKeys.last, last >= primaryKey { keysAscend = false }
        primaryKeys.append(primaryKey)
        var slot = Self.hash(piece) & (slots.count - 1)
        while true {
            let group = slots[slot]
            if group < 0 { break }
            let same = distinct.withUnsafeBufferPointer { text(Int(group), in: $0).elementsEqual(piece) }
            if same {
                groupOf.append(group)
                return
            }
            slot = (slot + 1) & (slots.count - 1)
        }
        let group = Int32(groupCount)
        slots[slot] = group
        groupOf.append(group)
        distinct.append(contentsOf: piece)
        starts.append(distinct.count)
        if 2 * groupCount > slots.count { rehash(size: 2 * slots.count) }
    }

    /// The hash of `piece` (seeded per process, as every `Hasher`).
    private static func hash(_ piece: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(piece))
        return hasher.finalize()
    }

    /// Rebuilds the table with `size` slots (a power of two).
    private mutating func rehash(size: Int) {
        var slots = [Int32](repeating: -1, count: size)
        distinct.withUnsafeBufferPointer { distinct in
            for group in 0..<groupCount {
                var slot = Self.hash(text(group, in: distinct)) & (size - 1)
                while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
                slots[slot] = Int32(group)
            }
        }
        self.slots = slots
    }
}

/// The entries of a ``StringGrouping`` in index order.
///
/// Strings repeat: ten million to-do names hold about ten thousand distinct ones. So the
/// entries are grouped by their UTF-8 bytes first, only the distinct strings are sorted
/// (``StringOrder``: by their bytes where those decide, by comparing the strings where they
/// do not), and the entries are placed group by group, each group in primary-key order.
/// Groups of different bytes whose strings are equal (canonically equivalent spellings) are
/// merged by primary key.
///
/// Sorting the entries themselves by comparing them retained and released each string at
/// every comparison and read it wherever it lay on the heap, and broke each tie between
/// equal names by reading both entries' keys: at ten million names that was most of an
/// index's build, and it grew faster than the rows.
struct StringGroups {
    /// The positions of the entries in index order.
    let order: [Int32]
    /// Each group's string.
    let strings: [String]

    /// The order of `grouping`'s entries; `nil` when a group's bytes are not well-formed
    /// UTF-8.
    init?(_ grouping: StringGrouping) {
        let n = grouping.primaryKeys.count, groupCount = grouping.groupCount
        guard let made = grouping.distinct.withUnsafeBufferPointer({ distinct in
            Self.ordered(grouping, distinct: distinct, count: n, groups: groupCount)
        }) else { return nil }
        (order, strings) = made
    }

    /// ``init(_:)``'s work, with the distinct strings' bytes at hand.
    private static func ordered(_ grouping: StringGrouping, distinct: UnsafeBufferPointer<UInt8>,
                                count n: Int, groups groupCount: Int) -> (order: [Int32], strings: [String])? {
        // One string per group; byte order decides only for well-formed UTF-8.
        var strings: [String] = []
        strings.reserveCapacity(groupCount)
        for group in 0..<groupCount {
            guard let string = String(validating: grouping.text(group, in: distinct), as: UTF8.self) else { return nil }
            strings.append(string)
        }
        func compare(_ a: Int, _ b: Int) -> ComparisonResult {
            StringOrder.compareBytes(grouping.text(a, in: distinct), grouping.text(b, in: distinct), normalized: false)
                ?? StringOrder.compare(strings[a], strings[b])
        }
        // The distinct strings in order.
        var groups = Array(0..<groupCount)
        groups.sort { compare($0, $1) == .orderedAscending }
        // Where each group's entries start, in that order; then every entry in its place, each
        // group's in entry order.
        var next = [Int](repeating: 0, count: groupCount)
        for group in grouping.groupOf { next[Int(group)] += 1 }
        var start = 0
        var groupStarts: [Int] = []
        groupStarts.reserveCapacity(groupCount + 1)
        for group in groups {
            let count = next[group]
            next[group] = start
            groupStarts.append(start)
            start += count
        }
        groupStarts.append(n)
        let order = [Int32](unsafeUninitializedCapacity: n) { order, initialized in
            for (i, group) in grouping.groupOf.enumerated() {
                order[next[Int(group)]] = Int32(i)
                next[Int(group)] += 1
            }
            initialized = n
            // Runs of groups with equal strings, or groups whose entries' keys may not
            // ascend: their entries by primary key.
            let keys = grouping.primaryKeys
            var first = 0
            while first < groups.count {
                var last = first
                while last + 1 < groups.count, compare(groups[first], groups[last + 1]) == .orderedSame {
                    last += 1
                }
                if last > first || !grouping.keysAscend {
                    order[groupStarts[first]..<groupStarts[last + 1]].sort { keys[Int($0)] < keys[Int($1)] }
                }
                first = last + 1
            }
        }
        return (order, strings)
    }
}
