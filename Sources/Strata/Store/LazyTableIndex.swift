internal import StrataStorage

/// One of a table's indexes in one store version, built the first time a reader needs it.
///
/// Opening a store does not build its indexes (a build sorts every row of the table, several
/// times the cost of the open itself): each starts out pending and is built, once, by the
/// first fetch or relationship read that goes through it. From then on every new version
/// brings the built index up to date incrementally (``following(_:)``), as a commit always
/// did; a version made while the index is still pending gets a pending index of its own.
///
/// A reference shared by every copy of the table it belongs to; ``basis`` is the chunk list
/// it describes, so a table that was edited since (and not yet made a version) is never
/// answered with entries of other rows.
final class LazyTableIndex: Sendable {
    /// The indexed properties (positions in the layout's properties), most significant first.
    let properties: [Int]
    /// The table's chunks this index describes.
    let basis: [TableChunk]
    /// The index, once built.
    private let built: Locked<TableIndex?>
    /// The built index once its first values are hashed (a key probe asked for them), for
    /// probes to read without the lock or a copy of the index (see `LazyTableIndex+KeyProbe.swift`).
    let probed = OnceSlot<ProbedIndex>()

    /// A pending index of `properties` over `chunks`.
    init(properties: [Int], basis chunks: [TableChunk]) {
        self.properties = properties
        basis = chunks
        built = Locked(nil)
    }

    /// An index that is already built.
    init(_ index: TableIndex) {
        properties = index.properties
        basis = index.basis
        built = Locked(index)
        if index.hashedKeys != nil { probed.storeIfNil(ProbedIndex(index)) }
    }

    /// Whether the index describes `chunks` (the same list, not merely equal chunks).
    func describes(_ chunks: [TableChunk]) -> Bool {
        guard chunks.count == basis.count else { return false }
        return chunks.withUnsafeBufferPointer { a in basis.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }

    /// Whether a reader has built the index (for tests and `--explain`).
    var isBuilt: Bool { built.withLock { $0 != nil } }

    /// The built index with its first values hashed as `key`'s kind (see ``HashedKeys``): both
    /// made now if this is their first use (other readers wait rather than repeat it).
    /// - Complexity: O(1) once made; the first call is O(n log n) in the rows.
    func hashedIndex(as key: ProbeKey, for table: borrowing EntityTable) -> TableIndex {
        built.withLock { index in
            var made = index ?? TableIndex(properties: properties, table: table)
            made.hashingKeys(as: key)
            index = made
            return made
        }
    }

    /// The index of `table`'s rows: built now if this is its first use (other readers wait
    /// for that build rather than repeating it). A table that is not the one the index
    /// describes gets an index made for it alone, which is not kept.
    /// - Complexity: O(1) once built; the first call is O(n log n) in the rows.
    func index(for table: borrowing EntityTable) -> TableIndex {
        guard describes(table.chunks) else {
            let current = built.withLock { $0 }
            return current?.refreshed(for: table) ?? TableIndex(properties: properties, table: table)
        }
        return built.withLock { index in
            if let index { return index }
            let made = TableIndex(properties: properties, table: table)
            index = made
            return made
        }
    }

    /// The index for `table`, a later state of the rows this one describes: this one when
    /// the chunks are the same list; the built index brought up to date when it is built
    /// (waiting for a build under way); otherwise a new pending index.
    /// - Complexity: O(rows of the chunks that differ × log n) when built; O(1) otherwise.
    func following(_ table: borrowing EntityTable) -> LazyTableIndex {
        if describes(table.chunks) { return self }
        if let current = built.withLock({ $0 }) { return LazyTableIndex(current.refreshed(for: table)) }
        return LazyTableIndex(properties: properties, basis: table.chunks)
    }
}
