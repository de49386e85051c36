/// A fetch whose rows are the first entries of one index: no predicate, one ascending sort
/// key (no `[c]`) on an attribute with a single-property index, and a fetch limit; no
/// fetched properties or prefetching. The index holds the rows in exactly the fetch's order
/// (values as a sort orders them, nil first, ties by primary key), so the first
/// `offset + limit` entries are the answer: `ORDER BY createdAt LIMIT 20` reads twenty
/// entries instead of listing and ordering every row.
///
/// A double attribute is left out (a NaN has no place in an order, so the index and a sort
/// may place it apart), and so are a descending sort (the index's ties would come in the
/// wrong order), a context with unsaved changes to the entity, and an index not built yet
/// on a large table (the general path has it built in the background).
struct IndexPrefix {
    /// The entity's layout.
    let layout: EntityLayout
    /// The position of the index in the table's indexes.
    let indexPosition: Int
    let offset: Int
    let limit: Int

    /// The prefix that answers `request` on `store`, or `nil` when the request has another
    /// shape or no single-property index orders by its sort key.
    init?(_ request: borrowing FetchRequest, store: PersistentStore) {
        guard request.predicate == nil, request.sortKeys.count == 1, request.propertiesToFetch == nil,
              request.relationshipKeyPathsForPrefetching.isEmpty, request.fetchLimit > 0, request.fetchOffset >= 0,
              request.fetchBatchSize >= 0, !request.fetchOffset.addingReportingOverflow(request.fetchLimit).overflow else { return nil }
        let sort = request.sortKeys[0]
        guard sort.ascending, !sort.caseInsensitive, let layout = try? store.layout(named: request.entityName),
              let property = layout.propertyIndex[sort.key], let type = layout.properties[property].type, type != .double,
              let position = layout.indexes.firstIndex(of: [property]) else { return nil }
        self.layout = layout
        indexPosition = position
        offset = request.fetchOffset
        limit = request.fetchLimit
    }

    /// The primary keys of the matches in the newest version of `store`, in the fetch's
    /// order, or `nil` when the index is left to a background build. Builds the index if this
    /// is its first use on a small table.
    /// - Complexity: O(offset + limit) once the index is built.
    func keys(in store: PersistentStore) -> [Int64]? {
        store.currentVersion.withTable(layout.index) { table -> [Int64]? in
            let lazy = table.indexes[indexPosition]
            if lazy.isLeftToBackground(in: table, options: store.options) { return nil }
            return lazy.index(for: table).firstKeys(offset + limit).dropFirst(offset).map { $0 }
        }
    }
}

extension TableIndex {
    /// The primary keys of the first `count` entries (all of them when there are fewer), in
    /// index order.
    /// - Complexity: O(count + leaves read).
    func firstKeys(_ count: Int) -> [Int64] {
        var keys: [Int64] = []
        keys.reserveCapacity(min(count, self.count))
        for leaf in leaves {
            guard keys.count < count else { break }
            keys.append(contentsOf: leaf.keys.prefix(count - keys.count))
        }
        return keys
    }
}
