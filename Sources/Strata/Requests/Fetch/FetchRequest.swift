/// A description of objects to fetch from a store: an entity, an optional predicate, an
/// order, and how many and in what form to return them (Core Data's `NSFetchRequest`).
///
/// For example:
/// ```swift
/// var request = FetchRequest(entityName: "Person")
/// request.predicate = try ObjectPredicate(format: "age BETWEEN {100, 200}")
/// request.sortKeys = [SortKey("lastName"), SortKey("age", ascending: false)]
/// request.fetchBatchSize = 20
/// let people = try context.fetch(request)
/// ```
public struct FetchRequest: Sendable, Hashable {
    /// What a fetch returns.
    public enum ResultType: Sendable, Hashable {
        /// Managed objects registered in the context.
        case objects
        /// Object IDs only.
        case objectIDs
        /// The number of matches only.
        case count
        /// Dictionaries of ``FetchRequest/propertiesToFetch`` read from the saved state.
        case dictionaries
    }

    /// The entity to fetch.
    public var entityName: String
    /// Which objects match (`nil`: all of them).
    public var predicate: ObjectPredicate?
    /// The order of the results, most significant first (`[]`: primary-key order).
    public var sortKeys: [SortKey] = []
    /// At most this many results (0: no limit).
    public var fetchLimit = 0
    /// Skip this many results first.
    public var fetchOffset = 0
    /// When above 0, objects are materialized this many at a time as the results are read,
    /// so memory stays bounded (0: all at once).
    public var fetchBatchSize = 0
    /// Whether the context's unsaved inserts, updates and deletes count (default `true`).
    /// Dictionary results always read the saved state.
    public var includesPendingChanges = true
    /// Whether objects come back as faults (default `true`); `false` loads their values.
    public var returnsObjectsAsFaults = true
    /// What the fetch returns (default ``ResultType/objects``), for ``ObjectContext/execute(_:)-(FetchRequest)``.
    public var resultType: ResultType = .objects
    /// The attributes (and to-one relationships, as keys) of dictionary results
    /// (`nil`: every attribute).
    public var propertiesToFetch: [String]?
    /// Relationships whose destination objects are loaded with the results, in one pass over
    /// each destination table instead of one fault per object (Core Data's
    /// `relationshipKeyPathsForPrefetching`). A path may go through several relationships
    /// (`"list.owner"`); to-one and to-many both work. Each result holds the objects loaded
    /// for it (except those of its own entity), so they stay registered while it is used.
    /// Only object results prefetch.
    public var relationshipKeyPathsForPrefetching: [String] = []

    /// A request for every object of `entityName`.
    public init(entityName: String, predicate: ObjectPredicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }
}

/// One key of a fetch's order (Core Data's `NSSortDescriptor`; named so to avoid
/// Foundation's `SortDescriptor`).
public struct SortKey: Sendable, Hashable {
    /// An attribute of the fetched entity.
    public var key: String
    /// Ascending (default) or descending.
    public var ascending: Bool
    /// Compare strings ignoring case (`caseInsensitiveCompare`'s role): both folded for case
    /// as a `[c]` predicate folds them, then in the same order as without it (Unicode
    /// scalars after canonical composition, not locale-aware), so strings that are equal
    /// under `==[c]` are ties.
    public var caseInsensitive: Bool

    /// Creates a sort key.
    public init(_ key: String, ascending: Bool = true, caseInsensitive: Bool = false) {
        self.key = key
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }
}

/// The result of ``ObjectContext/execute(_:)-(FetchRequest)``, shaped by the request's result type.
public enum FetchResult {
    /// Managed objects.
    case objects(FetchedResults)
    /// Object IDs.
    case objectIDs([ObjectID])
    /// A count.
    case count(Int)
    /// Dictionaries.
    case dictionaries([[String: AttributeValue]])
}
