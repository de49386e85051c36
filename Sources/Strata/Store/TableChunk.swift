internal import StrataStorage

/// An immutable run of rows of one entity, sorted by primary key: one ``ColumnChunk`` per
/// column (primary key, row version, attributes, to-one foreign keys).
///
/// Versions share chunks they did not change; a commit copies only the chunks (and within
/// them only the columns) it touches.
///
/// A chunk loaded from a snapshot starts undecoded: it knows its row count and key range
/// from the snapshot's footer, and decodes its columns (LZ4, then the column encodings) the
/// first time anyone reads them (see `TableChunk+Lazy.swift`).
///
/// `@unchecked Sendable`: every stored property is immutable except ``pendingSource`` and
/// ``partialColumns`` of a chunk loaded from a snapshot, which are read and written only
/// under its ``PendingDecode/lock`` (``withPendingSource(_:)``). They live in the chunk
/// rather than in an object of their own: a second allocation per chunk was a quarter of an
/// open's cost per chunk.
final class TableChunk: @unchecked Sendable {
    /// Rows in the chunk.
    let count: Int
    /// The first and last primary key (`.max` / `.min` when empty).
    let firstKey: Int64
    let lastKey: Int64
    /// The decoded columns, set once: at init for a chunk built in memory, at first read for
    /// one loaded from a snapshot.
    let decoded = OnceSlot<DecodedColumns>()
    /// Where an undecoded chunk's columns come from; `nil` for a chunk built in memory.
    let pending: PendingDecode?
    /// The source while the chunk is undecoded, `nil` after (and for a chunk built in
    /// memory). Only under the pending decode's lock, which also keeps accesses from
    /// overlapping: no run-time exclusivity check (one per field was a fifth of an open's
    /// cost per chunk).
    @exclusivity(unchecked) var pendingSource: SnapshotChunkSource?
    /// The columns ``someColumns(_:)`` decoded alone, by column number (`nil` where not
    /// decoded; empty before the first such call and once the chunk is decoded whole). Only
    /// under the pending decode's lock (no run-time exclusivity check, as for ``pendingSource``).
    @exclusivity(unchecked) var partialColumns: [ColumnChunk?] = []
    /// Per-column statistics computed on first use by queries (see `ChunkSkipper`), for a
    /// chunk built in memory; `nil` for one loaded from a snapshot, which has
    /// ``footerStatistics`` instead (a lock per chunk was a third of an open's cost per chunk).
    let statisticsCache: Locked<[Int: ColumnStatistics]>?
    /// The statistics of a chunk loaded from a snapshot, one per column of the snapshot's
    /// table, from its footer (shared with it, not copied), so skipping the chunk decodes
    /// nothing; empty for a chunk built in memory.
    let footerStatistics: ColumnStatisticsList

    init(columns: [ColumnChunk]) {
        let box = DecodedColumns(columns)
        decoded.storeIfNil(box)
        pending = nil
        statisticsCache = Locked([:])
        footerStatistics = []
        count = columns[EntityLayout.primaryKeyColumn].count
        let keys = box.primaryKeys
        firstKey = keys.first ?? .max
        lastKey = keys.last ?? .min
    }

    /// An undecoded chunk (see `init(source:index:)`).
    init(count: Int, firstKey: Int64, lastKey: Int64, statistics: ColumnStatisticsList, source: SnapshotChunkSource,
         pending: PendingDecode, partial: [ColumnChunk?] = []) {
        pendingSource = source
        partialColumns = partial
        statisticsCache = nil
        footerStatistics = statistics
        self.count = count
        self.firstKey = firstKey
        self.lastKey = lastKey
        self.pending = pending
    }

    /// The chunk's columns, decoded now if this is the first read.
    var columns: [ColumnChunk] { loaded.columns }

    /// The decoded columns (one atomic load once decoded).
    @inline(__always) var loaded: DecodedColumns {
        if let box = decoded.load() { return box }
        return decodeNow()
    }

    /// The primary keys, ascending.
    var primaryKeys: [Int64] { loaded.primaryKeys }

    /// The version (LSN of the last change) of each row.
    var versions: [Int64] { loaded.versions }

    /// The version of the row at `row`, read without counting a reference to the decoded
    /// columns (a fetch reads one per result it hands out).
    func version(at row: Int) -> UInt64 {
        withLoaded { decoded in decoded.versions.withUnsafeBufferPointer { UInt64(bitPattern: $0[row]) } }
    }

    /// Calls `body` with the decoded columns (decoded now if this is the first read) without
    /// counting a reference to them: the chunk holds them, set once and never replaced, for
    /// as long as it lives, and the caller holds the chunk.
    @inline(__always)
    func withLoaded<Result>(_ body: (DecodedColumns) -> Result) -> Result {
        if let decoded = decoded.loadUnmanaged() { return decoded._withUnsafeGuaranteedRef(body) }
        return body(decodeNow())
    }

    /// The row index of `key`, or `nil`.
    func row(of key: Int64) -> Int? {
        guard key >= firstKey, key <= lastKey else { return nil }
        return loaded.primaryKeys.withUnsafeBufferPointer { keys in
            var low = 0, high = keys.count
            while low < high {
                let mid = (low + high) / 2
                if keys[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low < keys.count && keys[low] == key ? low : nil
        }
    }

    /// The value at `row` of the column `access` names, read in place.
    @inline(__always)
    func value(at row: Int, _ access: EntityLayout.ColumnAccess) -> AttributeValue {
        let box = loaded
        return box.columns[access.column].value(at: row, type: access.type)
    }
}

/// A chunk's decoded columns, with its primary keys and versions unwrapped once.
final class DecodedColumns: Sendable {
    let columns: [ColumnChunk]
    let primaryKeys: [Int64]
    let versions: [Int64]
    /// The buffers of each byte column (`nil` for a column of another kind), so that a
    /// string is read with no reference counted (see ``string(column:row:)``).
    private let byteColumns: [ByteColumnBuffers?]

    init(_ columns: [ColumnChunk]) {
        self.columns = columns
        if case .int64(let keys) = columns[EntityLayout.primaryKeyColumn].values { primaryKeys = keys } else { primaryKeys = [] }
        if case .int64(let v) = columns[EntityLayout.versionColumn].values { versions = v } else { versions = [] }
        byteColumns = columns.map { column in
            guard case .bytes(let bytes) = column.values else { return nil }
            return ByteColumnBuffers(offsets: bytes.offsets, data: bytes.data, validity: column.validity)
        }
    }

    /// Row `row` of the byte column at `column` decoded as UTF-8 (`.null` where the row is
    /// null), or `nil` when that column holds another kind. Nothing is copied or counted:
    /// the buffers are read through the columns' own references, which live as long as
    /// these columns do (a read through ``ColumnChunk`` copied the column's values out,
    /// counting a reference to each of its buffers).
    @inline(__always)
    func string(column: Int, row: Int) -> AttributeValue? {
        byteColumns.withUnsafeBufferPointer { columns in
            guard let buffers = columns[column] else { return nil }
            return Unmanaged.passUnretained(buffers)._withUnsafeGuaranteedRef { $0.string(at: row) }
        }
    }
}

/// A byte column's buffers, as constants of one object: read through a reference the
/// reader does not count, they are borrowed in place.
final class ByteColumnBuffers: Sendable {
    /// `offsets[i]..<offsets[i + 1]` is row `i`'s bytes.
    let offsets: [UInt32]
    /// Every row's bytes, concatenated.
    let data: [UInt8]
    /// `validity[i]` is `false` where row `i` is null; `nil` when no row is.
    let validity: [Bool]?

    init(offsets: [UInt32], data: [UInt8], validity: [Bool]?) {
        self.offsets = offsets
        self.data = data
        self.validity = validity
    }

    /// Row `row` decoded as UTF-8, or `.null`.
    ///
    /// The row's bytes are found inside the buffers' closures and decoded after them: the
    /// pointer stays good, as this object (which the caller's chunk holds) keeps `data` for
    /// as long as it lives and never changes it. Decoding inside the closure counted a
    /// reference to this object around the call, on every string read.
    @inline(__always)
    func string(at row: Int) -> AttributeValue {
        if let validity, !validity[row] { return .null }
        let bytes = offsets.withUnsafeBufferPointer { offsets in
            data.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[Int(offsets[row])..<Int(offsets[row + 1])]) }
        }
        return .string(String(decoding: bytes, as: UTF8.self))
    }
}
