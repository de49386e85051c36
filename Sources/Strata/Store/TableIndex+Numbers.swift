extension TableIndex {
    /// The leaves of a single-property index over integers (or to-one keys), dates or
    /// doubles, read straight from the columns as flat value–key pairs: the entries of rows
    /// without a value (which sort first), then compact leaves of the rest. `nil` for other
    /// types, or when a double is NaN (those take the general path).
    /// - Complexity: O(n) in the rows for the radix sort of pairs in key order
    ///   (``IndexPairColumns``, ``IndexPairSort``), O(n log n) comparing plain numbers otherwise.
    static func numberLeaves(of access: EntityLayout.ColumnAccess, in chunks: [TableChunk])
        -> (nils: [IndexEntry], leaves: [IndexLeaf])? {
        let integers = access.type.map(\.isInteger) ?? true
        guard integers || access.type == .date || access.type == .double else { return nil }
        if integers {
            return numberLeaves(Int64.self, of: access, in: chunks) { keys, values in
                IndexLeaf(keys: keys, values: .integers(values))
            }
        }
        let dates = access.type == .date
        return numberLeaves(Double.self, of: access, in: chunks) { keys, values in
            IndexLeaf(keys: keys, values: .numbers(values, dates: dates))
        }
    }

    /// ``numberLeaves(of:in:)`` for a column of `Value`s, each leaf made by `leaf`.
    private static func numberLeaves<Value: IndexNumber>(_: Value.Type, of access: EntityLayout.ColumnAccess, in chunks: [TableChunk],
                                                         leaf: ([Int64], [Value]) -> IndexLeaf)
        -> (nils: [IndexEntry], leaves: [IndexLeaf])? {
        // The keys and the indexed column alone of a chunk not decoded yet; but the whole chunk
        // for a to-one key, whose index serves a to-many relationship's reads: they fault in
        // the rows it finds, which would decode each chunk (and decompress it) a second time.
        let read = [EntityLayout.primaryKeyColumn, access.column]
        let whole = access.type == nil
        var pairs = IndexPairColumns<Value>(capacity: chunks.reduce(0) { $0 + $1.count })
        var nils: [IndexEntry] = []
        for chunk in chunks {
            let columns = whole ? .all(chunk.loaded) : chunk.someColumns(read)
            let column = columns[access.column], keys = columns.primaryKeys
            // A column of another type, or more rows than the chunks count (never so): the
            // general path reads the values one by one.
            guard let values = Value.values(of: column.values), values.count == keys.count,
                  keys.count <= pairs.room else { return nil }
            keys.withUnsafeBufferPointer { keys in
                values.withUnsafeBufferPointer { values in
                    pairs.append(values: values, keys: keys, validity: column.validity) {
                        nils.append(IndexEntry(first: .null, rest: [], primaryKey: $0))
                    }
                }
            }
        }
        // A NaN has no place in the order: the general path compares such values.
        guard !pairs.unordered else { return nil }
        pairs.sort()
        // Rows without a value come first, by key (the order they were gathered in when the
        // keys ascend, as they do).
        if !pairs.ascending { nils.sort { $0.primaryKey < $1.primaryKey } }
        return (nils, pairs.leaves(leaf))
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
