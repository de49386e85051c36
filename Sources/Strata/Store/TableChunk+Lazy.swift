internal import StrataStorage

extension TableChunk {
    /// A chunk of a snapshot that has not been decoded yet: `index` in `source`.
    ///
    /// - Precondition: `info` is `source.chunks[index]` and its primary-key statistics hold
    ///   the chunk's first and last key (every snapshot's footer has them: the key column is
    ///   an `int64` column without nulls, sorted ascending).
    convenience init(source: SnapshotChunkSource, index: Int) {
        let info = source.chunks[index]
        var first = Int64.max, last = Int64.min
        if info.rowCount > 0, case .int(let low, let high)? = info.statistics[EntityLayout.primaryKeyColumn].range {
            (first, last) = (low, high)
        }
        self.init(count: info.rowCount, firstKey: first, lastKey: last, statistics: info.statistics, pending: PendingDecode(source: source, index: index))
    }

    /// Decodes the columns on the first read. Several threads may arrive at once: the first
    /// decodes under the chunk's lock while the others wait, and all return the same columns.
    func decodeNow() -> DecodedColumns {
        guard let pending else {
            // Unreachable: a chunk without a pending decode stored its columns at init.
            preconditionFailure("TableChunk without columns")
        }
        return pending.state.withLock { source in
            if let box = decoded.load() { return box }
            do {
                let columns = try source!.decode(pending.index)
                let box = decoded.storeIfNil(DecodedColumns(columns))
                source = nil   // the snapshot image is freed once every chunk has let go of it
                return box
            } catch {
                // Every chunk's checksum was verified at open, so only a writer's bug can
                // bring us here; returning anything would be returning wrong data.
                fatalError("\(error) The snapshot's checksums verified at open, so its writer produced this chunk: run `strata verify --deep` on the store and restore it from a backup.")
            }
        }
    }
}

/// An undecoded chunk's source, dropped once the chunk is decoded.
final class PendingDecode: Sendable {
    /// The source while the chunk is undecoded, `nil` after; the lock also serializes the
    /// first decode so that it runs once.
    let state: Locked<SnapshotChunkSource?>
    let index: Int

    init(source: SnapshotChunkSource, index: Int) {
        state = Locked(source)
        self.index = index
    }
}
