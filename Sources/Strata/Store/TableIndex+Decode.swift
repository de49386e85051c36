extension TableIndex {
    /// Decodes, on `threads` threads (``ParallelChunks``), what a build of an index over
    /// `properties` reads of the chunks not decoded yet, before the build reads them in order
    /// on the calling thread: the key column and the indexed one alone
    /// (``TableChunk/someColumns(_:)``) for a single-number or single-string index over an
    /// attribute, each chunk whole otherwise (as ``numberLeaves(of:in:)``,
    /// ``stringLeaves(of:in:)`` and the general path of ``init(properties:table:threads:)`` read
    /// them).
    /// Nothing when `threads` is 1 or fewer, or every chunk is decoded.
    ///
    /// The decode is most of what remains of a single-number build once the pairs are radix
    /// sorted: about 28 instructions a row of the 75 (ages, 1M people), in decompression and
    /// the column codecs, which work on each chunk alone.
    static func decodeChunks(_ chunks: [TableChunk], for properties: [Int], layout: EntityLayout, threads: Int) {
        guard threads > 1 else { return }
        let pending = chunks.filter { $0.decoded.load() == nil }
        guard pending.count > 1 else { return }
        let access = layout.columnAccess[properties[0]]
        // `numberLeaves` decodes a to-one key's chunks whole (see there), and the general path
        // reads every chunk whole.
        let alone = properties.count == 1 && access.type.map { $0.isInteger || $0 == .date || $0 == .double || $0 == .string } == true
        let read = [EntityLayout.primaryKeyColumn, access.column]
        _ = ParallelChunks.map(pending.count, threads: min(threads, pending.count)) { i in
            if alone { _ = pending[i].someColumns(read) } else { _ = pending[i].loaded }
        }
    }
}
