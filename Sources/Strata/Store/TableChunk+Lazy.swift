internal import StrataStorage

extension TableChunk {
    /// A chunk of a snapshot that has not been decoded yet: `index` in `source`, reporting a
    /// failed decode to `damage`.
    ///
    /// - Precondition: `info` is `source.chunks[index]` and its primary-key statistics hold
    ///   the chunk's first and last key (every snapshot's footer has them: the key column is
    ///   an `int64` column without nulls, sorted ascending).
    convenience init(source: SnapshotChunkSource, index: Int, damage: SnapshotDamage, locks: DecodeLocks) {
        let rows = source.chunks[index].rowCount
        let statistics = source.chunks[index].statistics
        var first = Int64.max, last = Int64.min
        if rows > 0, case .int(let low, let high)? = statistics[EntityLayout.primaryKeyColumn].range {
            (first, last) = (low, high)
        }
        self.init(count: rows, firstKey: first, lastKey: last, statistics: statistics, source: source,
                  pending: PendingDecode(index: index, damage: damage, lock: locks.lock(for: index)))
    }

    /// Decodes the columns on the first read (authenticating and decrypting an encrypted
    /// chunk first). Several threads may arrive at once: the first decodes under the chunk's
    /// lock while the others wait, and all return the same columns.
    ///
    /// A chunk that does not decode (only one rewritten together with its checksum can get
    /// here) records the error in the store's ``SnapshotDamage`` before anything is returned,
    /// then returns placeholder columns of its shape; every public operation checks the
    /// damage after reading and throws it instead of what it computed (``SnapshotDamage``).
    func decodeNow() -> DecodedColumns {
        guard let pending else {
            // Unreachable: a chunk without a pending decode stored its columns at init.
            preconditionFailure("TableChunk without columns")
        }
        return withPendingSource { slot, partialSlot in
            if let box = decoded.load() { return box }
            // Not nil: the source is let go only after the columns were stored.
            let source = slot!
            var columns: [ColumnChunk]
            do {
                // Columns decoded alone before (``someColumns(_:)``) are used as they are; the
                // others are decoded (or made, through a migration's mapping) now.
                let partial = partialSlot
                let width = columnCount(source)
                let missing = partial.isEmpty ? [Bool](repeating: true, count: width) : partial.map { $0 == nil }
                let made = missing.contains(true) ? try make(missing, from: source) : []
                columns = (0..<width).map { partial.isEmpty || partial[$0] == nil ? made[$0]! : partial[$0]! }
            } catch {
                pending.damage.record(error, snapshot: source.name, chunk: pending.index)
                columns = placeholderColumns(source)
            }
            let box = decoded.storeIfNil(DecodedColumns(columns))
            slot = nil   // the source (and its open file) is freed once every chunk has let go of it
            partialSlot = []
            return box
        }
    }

    /// The columns whose `wanted` entry is `true` (this chunk's numbering; `nil` for the
    /// others): the stored columns they come from decoded, without the rows batch deletes
    /// took out (``PendingDecode/removed``), then mapped when a migration mapped the chunk
    /// (``PendingDecode/mapping``). Called under the chunk's lock.
    ///
    /// - Throws: what the decode throws (a damaged or forged chunk).
    private func make(_ wanted: [Bool], from source: SnapshotChunkSource) throws -> [ColumnChunk?] {
        let pending = pending.unsafelyUnwrapped
        let storedCount = source.tables[source.chunks[pending.index].table].columns.count
        let mask = pending.mapping?.storedColumns(for: wanted, storedCount: storedCount) ?? wanted
        var stored = !mask.contains(true) ? [ColumnChunk?](repeating: nil, count: storedCount)
            : try source.decode(pending.index, only: mask.contains(false) ? mask : nil)
        // Rows a batch delete took out of the still undecoded chunk (`removingUndecoded`).
        if !pending.removed.isEmpty {
            for c in stored.indices where stored[c] != nil { stored[c]!.remove(rows: pending.removed) }
        }
        guard let mapping = pending.mapping else { return stored }
        return wanted.indices.map { wanted[$0] ? mapping.column($0, from: stored, count: count) : nil }
    }

    /// The columns numbered `wanted` (every other column `nil` unless decoded before), without
    /// decoding the chunk whole when it is not decoded yet: those of `wanted` not read before
    /// are decoded alone (the chunk is still read, verified, authenticated and decompressed
    /// whole, `SnapshotChunkSource.decode(_:only:)`) and kept for later calls, until a read of
    /// every column decodes the chunk whole. A chunk already decoded answers from its columns.
    ///
    /// A failure is recorded and answered with placeholders, as by ``decodeNow()``.
    func someColumns(_ wanted: [Int]) -> ChunkColumns {
        columns(wanted, keeping: true)
    }

    /// The columns numbered `wanted` for one read that keeps nothing: as ``someColumns(_:)``,
    /// but the columns it has to decode are returned without being kept, so they are freed
    /// when the caller lets go of them (a count with
    /// ``PersistentStore/Options/countsKeepDecodedColumns`` off). Columns decoded before,
    /// whole or alone, are used as they are.
    func passingColumns(_ wanted: [Int]) -> ChunkColumns {
        columns(wanted, keeping: false)
    }

    private func columns(_ wanted: [Int], keeping: Bool) -> ChunkColumns {
        if let box = decoded.load() { return .all(box) }
        guard let pending else {
            // Unreachable: a chunk without a pending decode stored its columns at init.
            preconditionFailure("TableChunk without columns")
        }
        return withPendingSource { slot, partial in
            if let box = decoded.load() { return .all(box) }
            // Not nil: the source is let go only after the columns were stored.
            let source = slot!
            let width = columnCount(source)
            var found = partial.isEmpty ? [ColumnChunk?](repeating: nil, count: width) : partial
            var mask = [Bool](repeating: false, count: width)
            var missing = false
            for column in wanted where found[column] == nil {
                mask[column] = true
                missing = true
            }
            if missing {
                var columns: [ColumnChunk?]
                do {
                    columns = try make(mask, from: source)
                } catch {
                    pending.damage.record(error, snapshot: source.name, chunk: pending.index)
                    columns = placeholderColumns(source).map(Optional.some)
                }
                for column in mask.indices where mask[column] { found[column] = columns[column] }
                if keeping { partial = found }
            }
            return .some(found)
        }
    }

    /// How many columns this chunk has, which `source` stores: those of its migration's
    /// table, or else those of the stored table.
    ///
    /// - Precondition: the chunk was loaded from a snapshot (``pending`` is set).
    func columnCount(_ source: SnapshotChunkSource) -> Int {
        let pending = pending.unsafelyUnwrapped
        return pending.mapping?.sources.count ?? source.tables[source.chunks[pending.index].table].columns.count
    }

    /// Columns of this chunk's shape (its migration's table, or else the stored one of
    /// `source`) that hold no stored value: keys ascending from ``firstKey`` to ``lastKey``
    /// (the footer's, so that routing by key stays consistent), versions 0, and every other
    /// row null.
    private func placeholderColumns(_ source: SnapshotChunkSource) -> [ColumnChunk] {
        let table = pending?.mapping?.table ?? source.tables[source.chunks[pending.unsafelyUnwrapped.index].table]
        var keys = [Int64](repeating: 0, count: count)
        for row in keys.indices { keys[row] = row == count - 1 ? lastKey : firstKey &+ Int64(row) }
        let nulls = [Bool](repeating: false, count: count)
        return table.columns.enumerated().map { column, descriptor in
            switch column {
            case EntityLayout.primaryKeyColumn: return ColumnChunk(values: .int64(keys))
            case EntityLayout.versionColumn: return ColumnChunk(values: .int64([Int64](repeating: 0, count: count)))
            default: break
            }
            let values: ColumnValues
            switch descriptor.kind {
            case .bool: values = .bool(nulls)
            case .int64: values = .int64([Int64](repeating: 0, count: count))
            case .double: values = .double([Double](repeating: 0, count: count))
            case .bytes: values = .bytes(ByteColumn(offsets: [UInt32](repeating: 0, count: count + 1), data: []))
            }
            return ColumnChunk(values: values, validity: nulls)
        }
    }
}

/// Where an undecoded chunk's columns come from, besides its source (which the chunk holds
/// until it is decoded, ``TableChunk/withPendingSource(_:)``).
struct PendingDecode: Sendable {
    /// Serializes the first decode so that it runs once; shared with other chunks.
    let lock: DecodeLocks.Stripe
    let index: Int
    /// The rows of the stored chunk that are not rows of this one, in the stored chunk's
    /// numbering, ascending: those batch deletes took out before it was decoded
    /// (``TableChunk/removingUndecoded(_:)``). Each decode removes them from what it decodes.
    let removed: [Int]
    /// Where a failed decode is recorded: the store's.
    let damage: SnapshotDamage
    /// How the chunk's columns are made from the stored ones when migrations mapped it before
    /// it was decoded (``TableChunk/mappingUndecoded(_:composed:)``); `nil`: they are the
    /// stored ones.
    let mapping: ChunkColumnMapping?

    init(index: Int, damage: SnapshotDamage, lock: DecodeLocks.Stripe, removed: [Int] = [],
         mapping: ChunkColumnMapping? = nil) {
        self.lock = lock
        self.index = index
        self.damage = damage
        self.removed = removed
        self.mapping = mapping
    }
}

extension TableChunk {
    /// Runs `body` with the source (`nil` once the chunk is decoded) and the columns decoded
    /// alone (``someColumns(_:)``; empty before the first such call and once the chunk is
    /// decoded whole) under the chunk's lock. `body` must not take another chunk's lock (a
    /// stripe is not reentrant): a decode reads its own chunk only.
    ///
    /// - Precondition: the chunk was loaded from a snapshot (``pending`` is set).
    func withPendingSource<Result>(_ body: (inout SnapshotChunkSource?, inout [ColumnChunk?]) -> Result) -> Result {
        var result: Result?
        pending.unsafelyUnwrapped.lock.locked.withLock { (_: inout Void) in result = body(&pendingSource, &partialColumns) }
        return result!
    }
}

/// The locks that serialize the first decodes of one snapshot load's chunks: chunk `i` takes
/// stripe `i % count`. Two chunks share a lock only `count` chunks apart, so a scan on both
/// cores, whose workers take runs of consecutive chunks, rarely waits on the other's decode.
final class DecodeLocks: Sendable {
    /// One lock of the stripe.
    final class Stripe: Sendable {
        let locked = Locked(())
    }

    private let stripes: [Stripe]

    /// `count` locks (64 by default: 64 allocations for the load, against one per chunk).
    init(count: Int = 64) {
        stripes = (0..<max(1, count)).map { _ in Stripe() }
    }

    /// The lock of chunk `index`.
    func lock(for index: Int) -> Stripe {
        stripes[index % stripes.count]
    }
}

/// Some columns of a chunk, as ``TableChunk/someColumns(_:)`` returns them: all of a decoded
/// chunk, or those decoded alone of one that is not (the others `nil`).
enum ChunkColumns {
    case all(DecodedColumns)
    case some([ColumnChunk?])

    /// Column number `column`, which the caller asked for.
    @inline(__always) subscript(column: Int) -> ColumnChunk {
        switch self {
        case .all(let box): return box.columns[column]
        case .some(let columns): return columns[column]!
        }
    }

    /// The primary keys, ascending (the caller asked for the key column).
    var primaryKeys: [Int64] {
        switch self {
        case .all(let box): return box.primaryKeys
        case .some(let columns):
            guard case .int64(let keys)? = columns[EntityLayout.primaryKeyColumn]?.values else { return [] }
            return keys
        }
    }
}
