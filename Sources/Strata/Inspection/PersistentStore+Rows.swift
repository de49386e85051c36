/// Rows of one entity read straight from a store's saved state, with the keys they hold.
public struct StoredRows: Sendable, Hashable {
    /// The keys, in the order of every row's ``StoredRow/values``.
    public var keys: [String]
    /// The rows, in the request's order.
    public var rows: [StoredRow]
}

/// One row read by ``PersistentStore/fetchRows(_:)``.
public struct StoredRow: Sendable, Hashable {
    /// The row's primary key.
    public var primaryKey: Int64
    /// One value per key of the ``StoredRows`` (to-one relationships as `.int(primaryKey)`
    /// or `.null`).
    public var values: [AttributeValue]
}

/// A stored property of an entity: an attribute, or a to-one relationship kept as the
/// destination's primary key.
public struct StoredProperty: Sendable, Hashable {
    /// Its name.
    public var name: String
    /// The attribute's type, or `nil` for a to-one relationship (an integer key).
    public var type: AttributeType?
    /// Whether it may be nil.
    public var isOptional: Bool
    /// For a to-one relationship, the destination entity's name.
    public var destination: String?
}

extension PersistentStore {
    /// Reads the rows matching `request` from the newest saved state, with their primary
    /// keys, without a context (tools use it; applications fetch through a context).
    ///
    /// `request.propertiesToFetch` names the keys (attributes and to-one relationships);
    /// `nil` means every attribute then every to-one relationship, in schema order. The
    /// predicate, sort keys, offset and limit apply as in a fetch.
    ///
    /// For example:
    /// ```swift
    /// var request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age > 40"))
    /// request.fetchLimit = 10
    /// for row in try store.fetchRows(request).rows { print(row.primaryKey, row.values) }
    /// ```
    ///
    /// - Throws: `.unknownEntity`, `.unknownKey` (naming the nearest key), `.typeMismatch`,
    ///   `.predicateArgument`, before any row is read; `.corrupted` when a chunk of the
    ///   store's snapshot fails its first read (an encrypted chunk that does not
    ///   authenticate), instead of any row.
    /// - Complexity: O(rows of the entity), plus O(m log m) to order m matches.
    public func fetchRows(_ request: FetchRequest) throws(StrataError) -> StoredRows {
        var resolved = request
        if resolved.propertiesToFetch == nil {
            resolved.propertiesToFetch = try layout(named: request.entityName).properties.map(\.name)
        }
        let plan = try FetchPlan(resolved, store: self)
        return try checkingDamage {
            let version = currentVersion
            let items = plan.order(plan.scan(version) ?? [], version: version)
            let rows = items.map { item in
                StoredRow(primaryKey: item.primaryKey, values: plan.properties.map { plan.value(of: item, property: $0, version: version) })
            }
            return StoredRows(keys: plan.properties.map { plan.layout.properties[$0].name }, rows: rows)
        }
    }

    /// The properties a row of `entityName` holds in ``fetchRows(_:)`` and in a batch
    /// insert: every attribute, then every to-one relationship, in schema order.
    ///
    /// - Throws: `.unknownEntity` naming the nearest entity.
    public func storedProperties(of entityName: String) throws(StrataError) -> [StoredProperty] {
        let resolved = try layout(named: entityName)
        return resolved.properties.map { property in
            StoredProperty(name: property.name, type: property.type, isOptional: property.isOptional,
                           destination: property.destination.map { layouts[$0].entity.name })
        }
    }
}
