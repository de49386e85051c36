import Foundation

/// One index over one entity's rows in one store version: every row's entry, in index
/// order (values, then primary key), in leaves of up to twice ``leafSize`` entries.
///
/// A value type like ``EntityTable``: a commit copies the leaf list and rebuilds only the
/// leaves its changed rows fall in. `basis` is the chunk list the index describes; when the
/// table's chunks are another list, the index is stale and ``refreshed(for:)`` brings it up
/// to date from the chunks that differ.
struct TableIndex: Sendable {
    /// Entries a leaf aims for.
    static let leafSize = 512

    /// The indexed properties (positions in the layout's properties), most significant first.
    let properties: [Int]
    /// Whether no indexed property is a double, so that a leaf can be binary searched
    /// (see ``IndexLeaf/isSearchable(ordered:)``).
    let totallyOrdered: Bool
    private(set) var leaves: [IndexLeaf]
    /// The last entry of each leaf, for binary search (kept in step with `leaves`).
    private(set) var lastEntries: [IndexEntry]
    private(set) var count: Int
    /// The table's chunks this index describes.
    private(set) var basis: [TableChunk]
    /// The first values hashed, once a key probe has asked for them (see ``HashedKeys``);
    /// every change to the entries changes them too.
    private(set) var hashedKeys: HashedKeys?

    /// Builds the index of `table`'s rows, the chunks it reads and that are not decoded yet
    /// decoded on `threads` threads first (``decodeChunks(_:for:layout:threads:)``; pass what
    /// ``ParallelChunks/threads(chunks:parallel:minimumPerThread:)`` gives for the store's
    /// options, as a scan does).
    /// - Complexity: O(n log n) in the rows.
    init(properties: [Int], table: borrowing EntityTable, threads: Int = 1) {
        Self.decodeChunks(table.chunks, for: properties, layout: table.layout, threads: threads)
        self.properties = properties
        totallyOrdered = Self.isTotallyOrdered(properties, layout: table.layout)
        leaves = []
        lastEntries = []
        count = 0
        basis = table.chunks
        if properties.count == 1, let built = Self.numberLeaves(of: table.layout.columnAccess[properties[0]], in: table.chunks)
            ?? Self.stringLeaves(of: table.layout.columnAccess[properties[0]], in: table.chunks) {
            // Rows without a value sort first, then the values' own leaves.
            replaceLeaves(0..<0, with: built.nils)
            for leaf in built.leaves {
                leaves.append(leaf)
                lastEntries.append(leaf.entry(at: leaf.count - 1))
                count += leaf.count
            }
            return
        }
        var entries: [IndexEntry] = []
        entries.reserveCapacity(table.rowCount)
        let access = properties.map { table.layout.columnAccess[$0] }
        for chunk in table.chunks {
            let keys = chunk.primaryKeys
            for row in keys.indices { entries.append(Self.entry(chunk, row, keys[row], access)) }
        }
        if properties.count == 1, let sorted = Self.sortedByNumber(entries) ?? Self.sortedByString(entries) {
            entries = sorted
        } else {
            entries.sort(by: IndexEntry.precedes)
        }
        replaceLeaves(0..<0, with: entries)
    }

    /// `entries` in index order when every value is an integer, or every value a date or a
    /// non-NaN double (no nil): sorted as plain number–key pairs, several times faster than
    /// comparing ``AttributeValue``s. `nil` otherwise.
    static func sortedByNumber(_ entries: [IndexEntry]) -> [IndexEntry]? {
        guard let first = entries.first else { return entries }
        switch first.first {
        case .int:
            var pairs: [(Int64, Int64, Int)] = []
            pairs.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() {
                guard case .int(let value) = entry.first else { return nil }
                pairs.append((value, entry.primaryKey, position))
            }
            pairs.sort { ($0.0, $0.1) < ($1.0, $1.1) }
            return pairs.map { entries[$0.2] }
        case .date, .double:
            var pairs: [(Double, Int64, Int)] = []
            pairs.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() {
                let value: Double
                switch entry.first {
                case .date(let date): value = date.timeIntervalSinceReferenceDate
                case .double(let double): value = double
                default: return nil
                }
                guard !value.isNaN else { return nil }
                // -0.0 and 0.0 are equal values: ties by primary key, as the comparison does.
                pairs.append((value == 0 ? 0 : value, entry.primaryKey, position))
            }
            pairs.sort { ($0.0, $0.1) < ($1.0, $1.1) }
            return pairs.map { entries[$0.2] }
        default:
            return nil
        }
    }

    /// The entry of the row at `row` of `chunk`.
    static func entry(_ chunk: TableChunk, _ row: Int, _ key: Int64, _ access: [EntityLayout.ColumnAccess]) -> IndexEntry {
        IndexEntry(first: chunk.value(at: row, access[0]),
                   rest: access.count == 1 ? [] : access.dropFirst().map { chunk.value(at: row, $0) },
                   primaryKey: key)
    }

    /// Whether the index describes `chunks` (the same list, not merely equal chunks).
    func describes(_ chunks: [TableChunk]) -> Bool {
        guard chunks.count == basis.count else { return false }
        return chunks.withUnsafeBufferPointer { a in basis.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }

    /// Replaces `range` of the leaves by leaves holding `entries` (in index order).
    private mutating func replaceLeaves(_ range: Range<Int>, with entries: [IndexEntry]) {
        let made = Self.leafRanges(count: entries.count).map { IndexLeaf(entries[$0]) }
        count += entries.count - leaves[range].reduce(0) { $0 + $1.count }
        leaves.replaceSubrange(range, with: made)
        lastEntries.replaceSubrange(range, with: made.map { $0.entry(at: $0.count - 1) })
    }

    /// The first leaf whose last entry is not before `entry` (where it would go), or the
    /// last leaf when it is after every entry.
    func leaf(for entry: IndexEntry) -> Int {
        var low = 0, high = lastEntries.count
        while low < high {
            let mid = (low + high) / 2
            if IndexEntry.precedes(lastEntries[mid], entry) { low = mid + 1 } else { high = mid }
        }
        return min(low, max(lastEntries.count - 1, 0))
    }

    /// Removes `removals` and adds `additions` (each in index order; every removal is
    /// present), then records `chunks` as what the index describes.
    /// - Complexity: O(changes × log n + entries of the leaves they fall in).
    mutating func apply(removing removals: [IndexEntry], adding additions: [IndexEntry], basis chunks: [TableChunk]) {
        basis = chunks
        guard !removals.isEmpty || !additions.isEmpty else { return }
        applyToLeaves(removing: removals, adding: additions)
        guard var hashed = hashedKeys else { return }
        hashedKeys = nil
        // The leaves are up to date: the table reads a key's one entry from them.
        if hashed.apply(removing: removals, adding: additions, index: self) { hashedKeys = hashed }
    }

    /// Hashes the index's first values as `key`'s kind (see ``HashedKeys``), unless they
    /// already are.
    /// - Complexity: O(1) when they are; O(n) otherwise.
    mutating func hashingKeys(as key: ProbeKey) {
        guard hashedKeys == nil else { return }
        hashedKeys = HashedKeys(self, as: key)
    }

    /// ``apply(removing:adding:basis:)``'s changes to the leaves.
    private mutating func applyToLeaves(removing removals: [IndexEntry], adding additions: [IndexEntry]) {
        if leaves.isEmpty {
            replaceLeaves(0..<0, with: additions)
            return
        }
        // Group the changes by leaf, then rewrite each touched leaf once, from the last.
        var groups: [Int: (remove: [IndexEntry], add: [IndexEntry])] = [:]
        for entry in removals { groups[leaf(for: entry), default: ([], [])].remove.append(entry) }
        for entry in additions { groups[leaf(for: entry), default: ([], [])].add.append(entry) }
        for position in groups.keys.sorted(by: >) {
            let (remove, add) = groups[position]!
            let old = leaves[position].entries
            var kept: [IndexEntry] = []
            kept.reserveCapacity(old.count - remove.count + add.count)
            var r = 0, a = 0
            for entry in old {
                while r < remove.count, IndexEntry.precedes(remove[r], entry) { r += 1 }
                if r < remove.count, IndexEntry.same(remove[r], entry) { r += 1; continue }
                while a < add.count, IndexEntry.precedes(add[a], entry) { kept.append(add[a]); a += 1 }
                kept.append(entry)
            }
            kept.append(contentsOf: add[a...])
            replaceLeaves(position..<position + 1, with: kept)
        }
    }
}
