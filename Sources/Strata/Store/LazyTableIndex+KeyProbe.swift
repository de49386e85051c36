/// The primary keys of a key probe's matches, ascending: the usual single match is kept out
/// of an array.
enum ProbeMatches: Equatable {
    /// One match.
    case one(Int64)
    /// Any number of matches (none too).
    case keys([Int64])

    /// How many matches.
    var count: Int {
        switch self {
        case .one: return 1
        case .keys(let keys): return keys.count
        }
    }

    /// The matches as an array.
    var keys: [Int64] {
        switch self {
        case .one(let key): return [key]
        case .keys(let keys): return keys
        }
    }
}

/// A built index whose first values are hashed, as a ``LazyTableIndex`` hands it to key
/// probes: immutable, read from the lazy index's ``OnceSlot`` without a lock or a copy.
final class ProbedIndex: Sendable {
    let index: TableIndex

    init(_ index: TableIndex) {
        self.index = index
    }

    /// The primary keys of the entries whose first value is `key`, or `nil` past `limit` of
    /// them (or when the index cannot be searched: see
    /// ``TableIndex/primaryKeys(firstEqualTo:limit:)``). A key with one entry or none is
    /// answered by the hashed keys; one with several by a search of the leaves.
    /// - Complexity: O(1) expected for a key with one entry or none, O(log n + matches) otherwise.
    @inline(__always)
    func matches(of key: ProbeKey, limit: Int) -> ProbeMatches? {
        switch index.hashedKeys?.match(key) {
        case .none?: return .keys([])
        case .one(let primaryKey)?: return limit > 0 ? .one(primaryKey) : nil
        case .several?, nil: return index.primaryKeys(firstEqualTo: key, limit: limit).map(ProbeMatches.keys)
        }
    }
}

extension LazyTableIndex {
    /// The built index with its first values hashed as `key`'s kind, for key probes; `nil`
    /// when this index does not describe `table`. The first call builds the index if need be
    /// and hashes its first values (``HashedKeys``); later ones read them without a lock.
    /// - Complexity: O(1) once made; the first call is O(n log n) in the rows.
    func probedIndex(as key: ProbeKey, for table: borrowing EntityTable) -> ProbedIndex? {
        guard describes(table.chunks) else { return nil }
        if let ready = probed.load() { return ready }
        return probed.storeIfNil(ProbedIndex(hashedIndex(as: key, for: table)))
    }

    /// The primary keys of `table`'s rows whose first indexed value is `key`, ascending, or
    /// `nil` past `limit` of them (or when the index cannot be searched), through
    /// ``probedIndex(as:for:)`` (a table this index does not describe gets a search of an
    /// index made for it).
    /// - Complexity: O(1) expected for a key with one entry or none, once built; O(log n +
    ///   matches) for others; the first call is O(n log n) in the rows.
    func matches(of key: ProbeKey, in table: borrowing EntityTable, limit: Int) -> ProbeMatches? {
        guard let probed = probedIndex(as: key, for: table) else {
            return index(for: table).primaryKeys(firstEqualTo: key, limit: limit).map(ProbeMatches.keys)
        }
        return probed.matches(of: key, limit: limit)
    }
}
