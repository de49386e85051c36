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
        decodeInParallel(touched, keysOnly: keysOnly)
    }

    /// Decodes the chunks of `chunks` that `places` point into and are not decoded yet,
    /// spread over the cores, before a fetch makes an object for each place (making an object
    /// reads its row's version, which decodes its chunk: the first fetch after an open would
    /// decompress every chunk it touches on the context's thread). Follows
    /// ``Options/scansInParallel``, as ``decodeInParallel(_:touching:keysOnly:)`` does.
    /// - Complexity: O(places + chunks) to find them.
    func decodeInParallel(_ chunks: [TableChunk], at places: [FetchPlaces.Place]) {
        guard options.scansInParallel, chunks.count >= 2 * options.parallelScanMinimumChunks else { return }
        var touched = [Bool](repeating: false, count: chunks.count)
        touched.withUnsafeMutableBufferPointer { touched in
            for place in places where place.chunk != FetchPlaces.Place.none.chunk { touched[Int(place.chunk)] = true }
        }
        decodeInParallel(chunks.indices.filter { touched[$0] && chunks[$0].decoded.load() == nil }.map { chunks[$0] })
    }

    /// Decodes `chunks` (whole, or their key columns alone with `keysOnly`) on as many threads
    /// as ``ParallelChunks/threads(chunks:parallel:minimumPerThread:)`` gives; nothing when
    /// that is one.
    private func decodeInParallel(_ chunks: [TableChunk], keysOnly: Bool = false) {
        let threads = ParallelChunks.threads(chunks: chunks.count, parallel: true,
                                             minimumPerThread: options.parallelScanMinimumChunks)
        guard threads > 1 else { return }
        if keysOnly {
            _ = ParallelChunks.map(chunks.count, threads: threads) { _ = chunks[$0].primaryKeysAlone }
        } else {
            _ = ParallelChunks.map(chunks.count, threads: threads) { _ = chunks[$0].loaded }
        }
    }
}
