import Foundation
internal import StrataStorage

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

/// The groups of a ``StringGrouping`` in index order.
///
/// Strings repeat: ten million to-do names hold about ten thousand distinct ones. So the
/// entries are grouped by their UTF-8 bytes first, only the distinct strings are sorted
/// (``StringOrder``: by their bytes where those decide, by comparing the strings where they
/// do not), and the entries are placed group by group, each group in primary-key order
/// (``placed(_:_:)``). Groups of different bytes whose strings are equal (canonically
/// equivalent spellings) are merged by primary key.
///
/// Sorting the entries themselves by comparing them retained and released each string at
/// every comparison and read it wherever it lay on the heap, and broke each tie between
/// equal names by reading both entries' keys: at ten million names that was most of an
/// index's build, and it grew faster than the rows.
struct StringGroups {
    /// Each group's string.
    let strings: [String]
    /// The groups in index order.
    let sequence: [Int]
    /// Where the entries of `sequence[k]` start in index order, and (last) the entry count.
    let starts: [Int]
    /// The ranges of `sequence` of two or more groups whose strings are equal.
    let equalRuns: [ClosedRange<Int>]
    /// For each group, where it lies in `sequence`.
    private let placeOf: [Int]

    /// The order of `grouping`'s groups; `nil` when a group's bytes are not well-formed
    /// UTF-8.
    init?(_ grouping: StringGrouping) {
        let groupCount = grouping.groupCount
        guard let made = grouping.distinct.withUnsafeBufferPointer({ distinct in
            Self.ordered(grouping, distinct: distinct, groups: groupCount)
        }) else { return nil }
        (strings, sequence, equalRuns) = made
        var counts = [Int](repeating: 0, count: groupCount)
        for group in grouping.groupOf { counts[Int(group)] += 1 }
        var starts: [Int] = []
        starts.reserveCapacity(groupCount + 1)
        var start = 0
        var placeOf = [Int](repeating: 0, count: groupCount)
        for (k, group) in sequence.enumerated() {
            starts.append(start)
            placeOf[group] = k
            start += counts[group]
        }
        starts.append(start)
        self.starts = starts
        self.placeOf = placeOf
    }

    /// The distinct strings, the groups sorted by them, and the runs of groups whose strings
    /// are equal.
    private static func ordered(_ grouping: StringGrouping, distinct: UnsafeBufferPointer<UInt8>, groups groupCount: Int)
        -> (strings: [String], sequence: [Int], equalRuns: [ClosedRange<Int>])? {
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
        var sequence = Array(0..<groupCount)
        sequence.sort { compare($0, $1) == .orderedAscending }
        var runs: [ClosedRange<Int>] = []
        var first = 0
        while first < sequence.count {
            var last = first
            while last + 1 < sequence.count, compare(sequence[first], sequence[last + 1]) == .orderedSame { last += 1 }
            if last > first { runs.append(first...last) }
            first = last + 1
        }
        return (strings, sequence, runs)
    }

    /// `element(i)` for every entry `i` of `grouping`, in index order: group after group,
    /// each group's in entry order. Entries are read in their order and each written once,
    /// so no entry's group or key is looked up at random.
    /// - Complexity: O(n).
    func placed<T>(_ grouping: StringGrouping, _ element: (Int) -> T) -> [T] {
        let n = starts[starts.count - 1]
        var next = sequence.indices.map { starts[$0] }
        return [T](unsafeUninitializedCapacity: n) { placed, initialized in
            for (i, group) in grouping.groupOf.enumerated() {
                let k = placeOf[Int(group)]
                (placed.baseAddress! + next[k]).initialize(to: element(i))
                next[k] += 1
            }
            initialized = n
        }
    }

    /// The runs of `sequence` whose entries must be sorted by primary key: each group alone
    /// when the keys did not ascend as the entries were added, and each run of groups whose
    /// strings are equal (their entries merged).
    func runsToSortByKey(_ grouping: StringGrouping) -> [ClosedRange<Int>] {
        guard !grouping.keysAscend else { return equalRuns }
        var runs = sequence.indices.map { $0...$0 }
        for run in equalRuns.reversed() { runs.replaceSubrange(run, with: [run]) }
        return runs
    }

    /// The index positions of the entries of the groups `run` of `sequence`.
    func positions(_ run: ClosedRange<Int>) -> Range<Int> { starts[run.lowerBound]..<starts[run.upperBound + 1] }

    /// The positions of `grouping`'s entries in index order.
    func order(_ grouping: StringGrouping) -> [Int32] {
        var order = placed(grouping) { Int32($0) }
        let keys = grouping.primaryKeys
        for run in runsToSortByKey(grouping) { order[positions(run)].sort { keys[Int($0)] < keys[Int($1)] } }
        return order
    }
}
