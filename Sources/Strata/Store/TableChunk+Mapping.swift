internal import StrataStorage

extension TableChunk {
    /// This chunk under a migration's `mapping` (from this chunk's columns to the new
    /// layout's), still undecoded: its first read decodes the stored columns and maps them
    /// (``PendingDecode/mapping``). A chunk a migration mapped before keeps its earlier
    /// mapping under the new one; `composed` caches those compositions, one per earlier
    /// mapping, for the chunks of one table.
    ///
    /// The statistics are the footer's mapped (``ChunkColumnMapping/statistics(from:count:)``),
    /// so that skipping the chunk still decodes nothing; the columns decoded alone before are
    /// mapped too, and the rows batch deletes took out stay out.
    ///
    /// - Returns: `nil` when this chunk is decoded (or is decoded meanwhile by another
    ///   thread), or was built in memory: the caller maps its columns instead.
    func mappingUndecoded(_ mapping: ChunkColumnMapping, composed: inout [ObjectIdentifier: ChunkColumnMapping]) -> TableChunk? {
        guard decoded.load() == nil, let pending else { return nil }
        let taken: (SnapshotChunkSource, [ColumnChunk?])? = withPendingSource { source, partial in
            source.map { ($0, partial) }
        }
        // A footer without statistics for every stored column (none in this format, but the
        // mapping needs them all): decoded and mapped by the caller.
        guard let (source, partial) = taken, footerStatistics.count == columnCount(source) else { return nil }
        let whole: ChunkColumnMapping
        if let earlier = pending.mapping {
            if let cached = composed[ObjectIdentifier(earlier)] {
                whole = cached
            } else {
                whole = mapping.composed(after: earlier)
                composed[ObjectIdentifier(earlier)] = whole
            }
        } else {
            whole = mapping
        }
        // The columns decoded alone that the new layout keeps as they are.
        var mappedPartial: [ColumnChunk?] = []
        if partial.contains(where: { $0 != nil }) {
            mappedPartial = mapping.sources.indices.map { column in
                guard case .stored(let old) = mapping.sources[column].base, partial[old] != nil else { return nil }
                return mapping.column(column, from: partial, count: count)
            }
        }
        let next = PendingDecode(index: pending.index, damage: pending.damage, lock: pending.lock,
                                 removed: pending.removed, mapping: whole)
        return TableChunk(count: count, firstKey: firstKey, lastKey: lastKey,
                          statistics: mapping.statistics(from: footerStatistics, count: count),
                          source: source, pending: next, partial: mappedPartial)
    }
}
