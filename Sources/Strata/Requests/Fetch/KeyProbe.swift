/// A fetch that one index answers alone: the predicate is one `==` (no `[c]`/`[d]`, no
/// `ANY`) between a string or integer attribute and a non-nil constant of its type, and an
/// index's first property is that attribute; no sort keys, fetched properties or
/// prefetching. The index holds the attribute's value beside each primary key, so its
/// entries equal to the constant are exactly the matches: no row is read or checked, no
/// chunk decoded, and no ``FetchPlan`` is made (no binding, filter or chunk skipper).
///
/// What it gives is what the general path gives: the rows of the version read, in
/// primary-key order, offset and limit applied. A context with unsaved changes to the
/// entity, a request of another shape, or one that would fail (an unknown entity or key, a
/// constant of another type, a negative limit) takes the general path, which handles or
/// reports it.
struct KeyProbe {
    /// Up to how many matches the probe gives; past that the general path runs (it orders
    /// and locates many rows better, and this is meant for unique keys).
    static let matchLimit = 64

    /// The entity, attribute and index, resolved from the request's names.
    let shape: Shape
    let key: ProbeKey
    let offset: Int
    let limit: Int

    /// The entity's layout.
    var layout: EntityLayout { shape.layout }

    /// What a probe resolves from a request's entity and key names alone: valid for the
    /// store's lifetime, since its layouts never change while it is open (the index's
    /// contents, which do, are read from the version each fetch reads).
    ///
    /// A context keeps the last one it resolved, with the index it last read (a reference,
    /// so that a probe neither copies the names nor resolves them again).
    final class Shape {
        let entityName: String
        let key: String
        let layout: EntityLayout
        /// The attribute's position in the layout's properties.
        let property: Int
        let type: AttributeType
        /// The position of the index in the table's indexes.
        let indexPosition: Int
        /// The LSN of the version whose index a probe last read (``lastIndex``): while the
        /// store's published LSN is that one, the published version is that version (the
        /// store publishes only newer LSNs), so a probe reads the index without the version.
        var lastLSN: UInt64 = 0
        /// The index a probe last read. Weak: the version that holds it keeps it alive while
        /// it is the published one, and a context must not keep an old version's index (and
        /// the chunks it describes) alive after that.
        weak var lastIndex: ProbedIndex?

        /// The shape of a lookup by `key` on `entityName` in `store`, or `nil` when no index
        /// leads with that attribute (or there is no such entity or attribute).
        init?(entityName: String, key: String, store: PersistentStore) {
            guard let layout = try? store.layout(named: entityName), let property = layout.propertyIndex[key],
                  let type = layout.properties[property].type, type == .string || type.isInteger,
                  let position = layout.indexes.firstIndex(where: { $0.count == 1 && $0[0] == property })
                    ?? layout.indexes.firstIndex(where: { $0[0] == property }) else { return nil }
            self.entityName = entityName
            self.key = key
            self.layout = layout
            self.property = property
            self.type = type
            indexPosition = position
        }
    }

    /// The probe that answers `request` on `store`, or `nil` when the request has another
    /// shape or no index leads with its attribute. `cache` holds the last shape resolved
    /// (for a context's repeated lookups; it must only ever hold shapes of `store`).
    init?(_ request: borrowing FetchRequest, store: PersistentStore, cache: inout Shape?) {
        // Borrowed: an initializer would otherwise take (so copy) the whole request.
        guard request.sortKeys.isEmpty, request.propertiesToFetch == nil, request.relationshipKeyPathsForPrefetching.isEmpty,
              request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0,
              case .comparison(let c)? = request.predicate,
              c.op == .equalTo, c.modifier == .direct, c.options.isEmpty,
              case .keyPath(let path) = c.left, path.count == 1, case .constant(let value) = c.right else { return nil }
        let shape: Shape
        if let cached = cache, cached.key == path[0], cached.entityName == request.entityName {
            shape = cached
        } else {
            guard let resolved = Shape(entityName: request.entityName, key: path[0], store: store) else { return nil }
            shape = resolved
            cache = resolved
        }
        switch value {
        case .string(let string) where shape.type == .string: key = .string(string)
        case .int(let integer) where shape.type.isInteger: key = .integer(integer)
        default: return nil
        }
        self.shape = shape
        offset = request.fetchOffset
        limit = request.fetchLimit
    }

    /// The probe that answers `request` on `store`, or `nil`; see ``init(_:store:cache:)``.
    init?(_ request: borrowing FetchRequest, store: PersistentStore) {
        var cache: Shape?
        self.init(request, store: store, cache: &cache)
    }

    /// The primary keys of the matches in the newest version of `store`, ascending, offset
    /// and limit applied, or `nil` when the general path must answer (more than
    /// ``matchLimit`` matches, an index whose order cannot be searched). Builds the index if
    /// this is its first use (on a large table, `nil` instead, for the general path to scan
    /// while the index is built in the background), and hashes its first values if this is
    /// the first probe through it (``HashedKeys``). While no commit has been published since the shape's last read,
    /// the index is read again without reading the version.
    /// - Complexity: O(1) expected once built, for a key with one entry or none; O(log n +
    ///   matches) for others.
    func matches(in store: PersistentStore) -> ProbeMatches? {
        if shape.lastLSN == store.lastLSN, let index = shape.lastIndex {
            return trimmed(index.matches(of: key, limit: Self.matchLimit))
        }
        let version = store.currentVersion
        let found = version.withTable(layout.index) { table -> ProbeMatches? in
            let lazy = table.indexes[shape.indexPosition]
            // Not built yet on a large table: the general path scans and has it built in the background.
            if lazy.isLeftToBackground(in: table, options: store.options) { return nil }
            guard let probed = lazy.probedIndex(as: key, for: table) else {
                // A table its index does not describe gets a search of an index made for it.
                return lazy.index(for: table).primaryKeys(firstEqualTo: key, limit: Self.matchLimit).map(ProbeMatches.keys)
            }
            shape.lastLSN = version.lsn
            shape.lastIndex = probed
            return probed.matches(of: key, limit: Self.matchLimit)
        }
        return trimmed(found)
    }

    /// The primary keys of the matches in `version` of a store opened with `options`; see
    /// ``matches(in:)``.
    func keys(_ version: StoreVersion, options: PersistentStore.Options) -> [Int64]? {
        let found = version.withTable(layout.index) { table -> ProbeMatches? in
            let lazy = table.indexes[shape.indexPosition]
            if lazy.isLeftToBackground(in: table, options: options) { return nil }
            return lazy.matches(of: key, in: table, limit: Self.matchLimit)
        }
        return trimmed(found)?.keys
    }

    /// `found` with the offset and limit applied.
    private func trimmed(_ found: ProbeMatches?) -> ProbeMatches? {
        switch found {
        case nil: return nil
        case .one?: return offset == 0 ? found : .keys([])
        case .keys(let keys)?:
            let start = min(offset, keys.count)
            let end = limit > 0 ? start + min(limit, keys.count - start) : keys.count
            return start == 0 && end == keys.count ? found : .keys(Array(keys[start..<end]))
        }
    }

    /// The names of the index's properties, most significant first.
    var indexNames: [String] {
        layout.indexes[shape.indexPosition].map { layout.properties[$0].name }
    }
}
