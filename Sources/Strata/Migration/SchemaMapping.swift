/// How a store's tables become the tables of a new schema: for each entity of the new
/// schema, the entity of the old one whose rows it keeps (or none: a new, empty entity),
/// and for each of its stored properties (layout order) the old property whose values it
/// keeps (or none: the new attribute's default, or nil).
///
/// Conversions are not recorded: they follow from the two schemas (an integer column that
/// becomes a `double` is converted, an optional column that becomes required has its nils
/// replaced with the default). A migration record carries the mapping, so that replaying
/// the log rebuilds exactly the migrated tables.
struct SchemaMapping: Sendable, Hashable {
    struct EntityMap: Sendable, Hashable {
        /// Index of the old entity whose rows are kept, or `nil`.
        var source: Int?
        /// Per stored property of the new layout, the old layout's property index, or `nil`.
        var properties: [Int?]
    }

    /// One per entity of the new schema, in its order.
    var entities: [EntityMap]
}
