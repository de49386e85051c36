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

    /// The probe that answers `request` on `store`, or `nil` when the request has another
    /// shape or no index leads with its attribute.
    init?(_ request: FetchRequest, store: PersistentStore) {
        guard let predicate = request.predicate, case .comparison(let c) = predicate,
              c.op == .equalTo, c.modifier == .direct, c.options.isEmpty,
              case .keyPath(let path) = c.left, path.count == 1, case .constant(let value) = c.right,
              request.sortKeys.isEmpty, request.propertiesToFetch == nil, request.relationshipKeyPathsForPrefetching.isEmpty,
              request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0,
              let layout = try? store.layout(named: request.entityName),
              let property = layout.propertyIndex[path[0]], let type = layout.properties[property].type else { return nil }
        switch value {
        case .string(let string) where type == .string: key = .string(string)
        case .int(let integer) where type.isInteger: key = .integer(integer)
        default: return nil
        }
        guard let position = layout.indexes.firstIndex(where: { $0.count == 1 && $0[0] == property })
                ?? layout.indexes.firstIndex(where: { $0[0] == property }) else { return nil }
        self.layout = layout
        self.property = property
        indexPosition = position
        offset = request.fetchOffset
        limit = request.fetchLimit
    }

    /// The primary keys of the matches in `version`, ascending, offset and limit applied, or
    /// `nil` when the general path must answer (more than ``matchLimit`` matches, an index
    /// whose order cannot be searched). Builds the index if this is its first use.
    /// - Complexity: O(log n + matches) once the index is built.
    func keys(_ version: StoreVersion) -> [Int64]? {
        let found = version.withTable(layout.index) { table in
            table.indexes[indexPosition].index(for: table).primaryKeys(firstEqualTo: key, limit: Self.matchLimit)
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
