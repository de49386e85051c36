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

    let layout: EntityLayout
    /// The attribute's position in the layout's properties.
    let property: Int
    /// The position of the index in the table's indexes.
    let indexPosition: Int
    let key: ProbeKey
    let offset: Int
    let limit: Int

    /// What a probe resolves from a request's entity and key names alone: valid for the
    /// store's lifetime, since its layouts never change while it is open (the index's
    /// contents, which do, are read from the version each fetch reads).
    struct Shape {
        let entityName: String
        let key: String
        let layout: EntityLayout
        /// The attribute's position in the layout's properties.
        let property: Int
        let type: AttributeType
        /// The position of the index in the table's indexes.
        let indexPosition: Int

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
    init?(_ request: FetchRequest, store: PersistentStore, cache: inout Shape?) {
        guard let predicate = request.predicate, case .comparison(let c) = predicate,
              c.op == .equalTo, c.modifier == .direct, c.options.isEmpty,
              case .keyPath(let path) = c.left, path.count == 1, case .constant(let value) = c.right,
              request.sortKeys.isEmpty, request.propertiesToFetch == nil, request.relationshipKeyPathsForPrefetching.isEmpty,
              request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0 else { return nil }
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
        layout = shape.layout
        property = shape.property
        indexPosition = shape.indexPosition
        offset = request.fetchOffset
        limit = request.fetchLimit
    }

    /// The probe that answers `request` on `store`, or `nil`; see ``init(_:store:cache:)``.
    init?(_ request: FetchRequest, store: PersistentStore) {
        var cache: Shape?
        self.init(request, store: store, cache: &cache)
    }

    /// The primary keys of the matches in `version`, ascending, offset and limit applied, or
    /// `nil` when the general path must answer (more than ``matchLimit`` matches, an index
    /// whose order cannot be searched). Builds the index if this is its first use, and hashes
    /// its first values if this is the first probe through it (``HashedKeys``).
    /// - Complexity: O(1) expected once built, for a key with one entry or none; O(log n +
    ///   matches) for others.
    func keys(_ version: StoreVersion) -> [Int64]? {
        let found = version.withTable(layout.index) { table in
            table.indexes[indexPosition].primaryKeys(equalTo: key, in: table, limit: Self.matchLimit)
        }
        guard let found else { return nil }
        let start = min(offset, found.count)
        let end = limit > 0 ? start + min(limit, found.count - start) : found.count
        return start == 0 && end == found.count ? found : Array(found[start..<end])
    }

    /// The names of the index's properties, most significant first.
    var indexNames: [String] {
        layout.indexes[indexPosition].map { layout.properties[$0].name }
    }
}
