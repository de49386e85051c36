internal import StrataStorage

/// One of a table's indexes in one store version, built the first time a reader needs it.
///
/// Opening a store does not build its indexes (a build sorts every row of the table, several
/// times the cost of the open itself): each starts out pending. A relationship read or a
/// uniqueness check that goes through a pending index builds it then and there
/// (``index(for:)``). A fetch does not wait for one on a large table
/// (``readyIndex(for:building:)``): it scans, as it would without the index, and the index
/// is built on a background thread of the lowest priority (``IndexBuilder``), for the fetches
/// after it. From then on every new version brings the built index up to date
/// incrementally (``following(_:)``), as a commit always did; a version made while the index
/// is still pending gets a pending index of its own, which takes over a background build
/// under way in an older version rather than starting another.
///
/// A reference shared by every copy of the table it belongs to; ``basis`` is the chunk list
/// it describes, so a table that was edited since (and not yet made a version) is never
/// answered with entries of other rows.
final class LazyTableIndex: Sendable {
    /// What is known of the index: built, being built in the background, or to be refreshed
    /// from an older version's index that is being (or was) built in the background.
    private struct State {
        var built: TableIndex?
        /// Whether a background build of this index is under way.
        var building = false
        /// An older version's index whose background build this one waits for, then
        /// refreshes (``TableIndex/refreshed(for:)``) instead of building anew.
        var source: LazyTableIndex?
    }

    /// The indexed properties (positions in the layout's properties), most significant first.
    let properties: [Int]
    /// The table's chunks this index describes.
    let basis: [TableChunk]
    private let state: Locked<State>
    /// The built index once its first values are hashed (a key probe asked for them), for
    /// probes to read without the lock or a copy of the index (see `LazyTableIndex+KeyProbe.swift`).
    let probed = OnceSlot<ProbedIndex>()

    /// A pending index of `properties` over `chunks`; `source`, an older version's index
    /// being built in the background, is refreshed into this one once built.
    init(properties: [Int], basis chunks: [TableChunk], source: LazyTableIndex? = nil) {
        self.properties = properties
        basis = chunks
        state = Locked(State(source: source))
    }

    /// An index that is already built.
    init(_ index: TableIndex) {
        properties = index.properties
        basis = index.basis
        state = Locked(State(built: index))
        if index.hashedKeys != nil { probed.storeIfNil(ProbedIndex(index)) }
    }

    /// Whether the index describes `chunks` (the same list, not merely equal chunks).
    func describes(_ chunks: [TableChunk]) -> Bool {
        guard chunks.count == basis.count else { return false }
        return chunks.withUnsafeBufferPointer { a in basis.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }

    /// Whether the index is built (for tests, `--explain` and the upsert's choice).
    var isBuilt: Bool { state.withLock { $0.built != nil } }

    /// Whether a background build of this index, or of the older one it takes over, is under
    /// way (for `--explain`).
    var isBuildingInBackground: Bool {
        state.withLock { $0.building || $0.source != nil }
    }

    /// Whether a reader of `table` in a store opened with `options` leaves this index to a
    /// background build rather than building it: it is not built, and the table is large
    /// enough for ``PersistentStore/Options/backgroundIndexBuilder(rows:)``.
    func isLeftToBackground(in table: borrowing EntityTable, options: PersistentStore.Options) -> Bool {
        !isBuilt && options.backgroundIndexBuilder(rows: table.rowCount) != nil
    }

    /// The built index, if any, without building it.
    private var builtIndex: TableIndex? { state.withLock { $0.built } }

    /// The built index with its first values hashed as `key`'s kind (see ``HashedKeys``): both
    /// made now if this is their first use (other readers wait rather than repeat it).
    /// - Complexity: O(1) once made; the first call is O(n log n) in the rows.
    func hashedIndex(as key: ProbeKey, for table: borrowing EntityTable) -> TableIndex {
        state.withLock { state in
            var made = state.built ?? Self.made(properties, for: table, from: state.source)
            made.hashingKeys(as: key)
            state.built = made
            state.source = nil
            return made
        }
    }

    /// The index of `table`'s rows: built now if this is its first use (other readers wait
    /// for that build rather than repeating it; a background build under way is not waited
    /// for). A table that is not the one the index describes gets an index made for it
    /// alone, which is not kept.
    /// - Complexity: O(1) once built; the first call is O(n log n) in the rows.
    func index(for table: borrowing EntityTable) -> TableIndex {
        guard describes(table.chunks) else {
            return builtIndex?.refreshed(for: table) ?? TableIndex(properties: properties, table: table)
        }
        return state.withLock { state in
            if let index = state.built { return index }
            let made = Self.made(properties, for: table, from: state.source)
            state.built = made
            state.source = nil
            return made
        }
    }

    /// The index of `table`'s rows if it is built (or can be refreshed from an older
    /// version's built index); otherwise `nil`, after starting its build on `builder` unless
    /// a build is already under way. A table that is not the one the index describes gets
    /// ``index(for:)``'s answer.
    /// - Complexity: O(1) once built; O(rows changed since × log n) the first time after an
    ///   older version's background build; O(1) otherwise (the build runs elsewhere).
    func readyIndex(for table: borrowing EntityTable, building builder: IndexBuilder) -> TableIndex? {
        guard describes(table.chunks) else { return index(for: table) }
        enum Next { case ready(TableIndex), wait, build }
        let next = state.withLock { state -> Next in
            if let index = state.built { return .ready(index) }
            if let source = state.source {
                // Locks go from a newer version's index to an older one's, never back.
                guard let older = source.builtIndex else { return .wait }
                let made = older.refreshed(for: table)
                state.built = made
                state.source = nil
                return .ready(made)
            }
            if state.building { return .wait }
            state.building = true
            return .build
        }
        switch next {
        case .ready(let index): return index
        case .wait: return nil
        case .build:
            let rows = copy table
            builder.start { [self] in
                let made = TableIndex(properties: properties, table: rows)
                state.withLock { state in
                    if state.built == nil { state.built = made }
                    state.building = false
                }
            }
            return nil
        }
    }

    /// The index for `table`, a later state of the rows this one describes: this one when
    /// the chunks are the same list; the built index brought up to date when it is built
    /// (waiting for a build under way on a reader's thread); otherwise a new pending index,
    /// which takes over this one's background build if one is under way.
    /// - Complexity: O(rows of the chunks that differ × log n) when built; O(1) otherwise.
    func following(_ table: borrowing EntityTable) -> LazyTableIndex {
        if describes(table.chunks) { return self }
        let (built, source) = state.withLock { state in
            (state.built, state.building ? self : state.source)
        }
        // An older version's background build that is done is refreshed now, as a built
        // index is, rather than kept for a reader that may never come.
        if let built = built ?? source?.builtIndex { return LazyTableIndex(built.refreshed(for: table)) }
        return LazyTableIndex(properties: properties, basis: table.chunks, source: source)
    }

    /// The index of `properties` over `table`: `source`'s built index brought up to date
    /// when it has one, otherwise built from the rows.
    private static func made(_ properties: [Int], for table: borrowing EntityTable, from source: LazyTableIndex?) -> TableIndex {
        if let older = source?.builtIndex { return older.refreshed(for: table) }
        return TableIndex(properties: properties, table: table)
    }
}
