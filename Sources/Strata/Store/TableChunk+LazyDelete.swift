internal import StrataStorage

extension TableChunk {
    /// The primary keys, ascending, without decoding the other columns of a chunk not decoded
    /// yet: its key column alone is decoded, and kept (``someColumns(_:)``).
    var primaryKeysAlone: [Int64] {
        if let box = decoded.load() { return box.primaryKeys }
        return someColumns([EntityLayout.primaryKeyColumn]).primaryKeys
    }

    /// This chunk without its rows `rows` (sorted, distinct, in this chunk's numbering), still
    /// undecoded: a batch delete of rows of a chunk loaded from a snapshot decodes its key
    /// column only, and the other columns are decoded, without those rows, when first read
    /// (``PendingDecode/removed``). A checkpoint or the first read pays for the rest, as for
    /// any chunk loaded from a snapshot.
    ///
    /// The new chunk's statistics are the footer's, which stay true bounds: a range of the
    /// remaining values is within the stored range, and a column that was all null still is.
    /// Its null counts are lowered by the rows removed (a lower bound on the remaining nulls),
    /// so that "every row is null" is never inferred for a column that was not.
    ///
    /// - Returns: `nil` when this chunk is decoded (or is decoded meanwhile by another
    ///   thread): the caller removes the rows from its columns instead.
    func removingUndecoded(_ rows: [Int]) -> TableChunk? {
        guard decoded.load() == nil, let pending, !rows.isEmpty else { return nil }
        let keys = primaryKeysAlone
        guard let source = withPendingSource({ source, _ in source }), keys.count == count else { return nil }
        let kept = count - rows.count
        // The removed rows in the stored chunk's numbering, with those removed before: row
        // `r` of this chunk is the `r`-th stored row not removed before.
        var stored = rows
        if !pending.removed.isEmpty {
            var gone = [Bool](repeating: false, count: count + pending.removed.count)
            for row in pending.removed { gone[row] = true }
            let remaining = gone.indices.filter { !gone[$0] }
            for row in rows { gone[remaining[row]] = true }
            stored = gone.indices.filter { gone[$0] }
        }
        // The key column without the rows, kept decoded in the new chunk.
        var column = ColumnChunk(values: .int64(keys))
        column.remove(rows: rows)
        guard case .int64(let remainingKeys) = column.values else { return nil }
        let statistics = ColumnStatisticsList(footerStatistics.map { stats -> ColumnStatistics in
            var bounds = stats
            bounds.nullCount = stats.range == nil && stats.nullCount >= count ? kept : max(0, stats.nullCount - rows.count)
            return bounds
        })
        let width = columnCount(source)
        var partial = [ColumnChunk?](repeating: nil, count: width)
        partial[EntityLayout.primaryKeyColumn] = column
        let next = PendingDecode(index: pending.index, damage: pending.damage, lock: pending.lock, removed: stored,
                                 mapping: pending.mapping)
        return TableChunk(count: kept, firstKey: remainingKeys.first ?? .max, lastKey: remainingKeys.last ?? .min,
                          statistics: statistics, source: source, pending: next, partial: partial)
    }
}
