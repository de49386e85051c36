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
        return groups.order(grouping).map { entries[Int($0)] }
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
        // The keys in index order, and each position's group read off the groups' sequence:
        // neither an entry's key nor its group is looked up at random (at ten million rows
        // those two lookups were half the build, and grew with the rows).
        var keys = groups.placed(grouping) { grouping.primaryKeys[$0] }
        // Where entries are sorted by key across groups of equally comparing spellings, each
        // keeps its own spelling: those positions' groups, by run.
        var spellings: [(positions: Range<Int>, groups: [Int])] = []
        for run in groups.runsToSortByKey(grouping) {
            let positions = groups.positions(run)
            guard run.count > 1 else {
                keys[positions].sort()
                continue
            }
            var pairs: [(key: Int64, group: Int)] = []
            pairs.reserveCapacity(positions.count)
            for k in run {
                for position in groups.positions(k...k) { pairs.append((keys[position], groups.sequence[k])) }
            }
            pairs.sort { $0.key < $1.key }
            for (offset, pair) in pairs.enumerated() { keys[positions.lowerBound + offset] = pair.key }
            spellings.append((positions, pairs.map(\.group)))
        }
        var k = 0, spelling = 0
        let leaves = leafRanges(count: keys.count).map { range in
            var values: [String] = []
            values.reserveCapacity(range.count)
            for position in range {
                while position >= groups.starts[k + 1] { k += 1 }
                while spelling < spellings.count, position >= spellings[spelling].positions.upperBound { spelling += 1 }
                if spelling < spellings.count, spellings[spelling].positions.contains(position) {
                    let run = spellings[spelling]
                    values.append(groups.strings[run.groups[position - run.positions.lowerBound]])
                } else {
                    values.append(groups.strings[groups.sequence[k]])
                }
            }
            return IndexLeaf(keys: Array(keys[range]), values: .strings(values))
        }
        return (nils, leaves)
    }
}
