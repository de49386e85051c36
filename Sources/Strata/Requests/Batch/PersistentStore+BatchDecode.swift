extension PersistentStore {
    /// Decodes, spread over the cores, the chunks of `table` that hold any of the ascending
    /// `keys` (every chunk when `keys` is `nil`) and are not decoded yet, so that the batch
    /// request about to rewrite them does not decode them one by one on the writer's thread
    /// (the first batch request after an open would decompress every chunk it touches
    /// there). Follows ``Options/scansInParallel``: off, or with too few such chunks, it does
    /// nothing and the edit decodes them as it goes.
    ///
    /// With `keysOnly` (a batch delete, which takes rows out of an undecoded chunk without
    /// decoding the rest: ``TableChunk/removingUndecoded(_:)``), only their key columns are.
    ///
    /// A chunk's key range comes from the snapshot's footer, so finding them decodes nothing.
    /// A chunk that fails to decode records the store's damage, as any first read does
    /// (``SnapshotDamage``), which the commit then refuses.
    func decodeInParallel(_ table: EntityTable, touching keys: [Int64]?, keysOnly: Bool = false) {
        guard options.scansInParallel else { return }
        var touched: [TableChunk] = []
        if let keys {
            var k = 0
            for chunk in table.chunks where k < keys.count {
                while k < keys.count, keys[k] < chunk.firstKey { k += 1 }
                if k < keys.count, keys[k] <= chunk.lastKey, chunk.decoded.load() == nil { touched.append(chunk) }
            }
        } else {
            touched = table.chunks.filter { $0.decoded.load() == nil }
        }
        let threads = ParallelChunks.threads(chunks: touched.count, parallel: true,
                                             minimumPerThread: options.parallelScanMinimumChunks)
        guard threads > 1 else { return }
        let chunks = touched
        if keysOnly {
            _ = ParallelChunks.map(chunks.count, threads: threads) { _ = chunks[$0].primaryKeysAlone }
        } else {
            _ = ParallelChunks.map(chunks.count, threads: threads) { _ = chunks[$0].loaded }
        }
    }
}
