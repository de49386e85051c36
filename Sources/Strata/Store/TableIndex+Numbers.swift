extension TableIndex {
    /// The leaves of a single-property index over integers (or to-one keys), dates or
    /// doubles, read straight from the columns as flat value–key pairs: the entries of rows
    /// without a value (which sort first), then compact leaves of the rest. `nil` for other
    /// types, or when a double is NaN (those take the general path).
    /// - Complexity: O(n) in the rows for the radix sort of pairs in key order
    ///   (``IndexPairSort``), O(n log n) comparing plain numbers otherwise.
    static func numberLeaves(of access: EntityLayout.ColumnAccess, in chunks: [TableChunk])
        -> (nils: [IndexEntry], leaves: [IndexLeaf])? {
        let integers = access.type.map(\.isInteger) ?? true
        guard integers || access.type == .date || access.type == .double else { return nil }
        let rows = chunks.reduce(0) { $0 + $1.count }
        // The keys and the indexed column alone of a chunk not decoded yet; but the whole chunk
        // for a to-one key, whose index serves a to-many relationship's reads: they fault in
        // the rows it finds, which would decode each chunk (and decompress it) a second time.
        let read = [EntityLayout.primaryKeyColumn, access.column]
        let whole = access.type == nil
        func chunkColumns(_ chunk: TableChunk) -> ChunkColumns { whole ? .all(chunk.loaded) : chunk.someColumns(read) }
        var nils: [IndexEntry] = []
        if integers {
            var pairs: [(value: Int64, key: Int64)] = []
            pairs.reserveCapacity(rows)
            for chunk in chunks {
                let columns = chunkColumns(chunk), column = columns[access.column], keys = columns.primaryKeys
                guard case .int64(let values) = column.values, values.count == keys.count else { return nil }
                for row in keys.indices {
                    if let validity = column.validity, !validity[row] {
                        nils.append(IndexEntry(first: .null, rest: [], primaryKey: keys[row]))
                    } else {
                        pairs.append((values[row], keys[row]))
                    }
                }
            }
            if !IndexPairSort.sortByValue(&pairs, IndexPairSort.sortable) {
                pairs.withUnsafeMutableBufferPointer { $0.sort { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key } }
            }
            let leaves = leafRanges(count: pairs.count).map { range in
                IndexLeaf(keys: pairs[range].map(\.key), values: .integers(pairs[range].map(\.value)))
            }
            return (nils, leaves)
        }
        var pairs: [(value: Double, key: Int64)] = []
        pairs.reserveCapacity(rows)
        for chunk in chunks {
            let columns = chunkColumns(chunk), column = columns[access.column], keys = columns.primaryKeys
            guard case .double(let values) = column.values, values.count == keys.count else { return nil }
            for row in keys.indices {
                if let validity = column.validity, !validity[row] {
                    nils.append(IndexEntry(first: .null, rest: [], primaryKey: keys[row]))
                } else {
                    guard !values[row].isNaN else { return nil }
                    pairs.append((values[row], keys[row]))
                }
            }
        }
        // -0.0 and 0.0 compare equal, so their ties go by primary key, as the comparison does.
        if !IndexPairSort.sortByValue(&pairs, IndexPairSort.sortable) {
            pairs.withUnsafeMutableBufferPointer { $0.sort { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key } }
        }
        let dates = access.type == .date
        let leaves = leafRanges(count: pairs.count).map { range in
            IndexLeaf(keys: pairs[range].map(\.key), values: .numbers(pairs[range].map(\.value), dates: dates))
        }
        return (nils, leaves)
    }

    /// How `count` entries in index order are cut into leaves: two leaves' worth or less in
    /// one leaf, more in ``leafSize`` pieces.
    static func leafRanges(count: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let remaining = count - start
            let take = remaining <= 2 * leafSize ? remaining : leafSize
            ranges.append(start..<start + take)
            start += take
        }
        return ranges
    }
}
