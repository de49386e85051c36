public import Foundation

/// What to fetch of one `@Model` class: a `#Predicate`, an order of `SortDescriptor`s, and
/// how many (SwiftData's `FetchDescriptor`).
///
/// The predicate and sort descriptors are translated into the engine's ``ObjectPredicate``
/// and ``SortKey`` — the same request the untyped API builds — so a typed fetch runs on the
/// same column scans; the closure is never run per object.
///
/// For example:
/// ```swift
/// var descriptor = FetchDescriptor<TodoItem>(
///     predicate: #Predicate { !$0.done && $0.name.contains("milk") },
///     sortBy: [SortDescriptor(\.createdAt, order: .reverse)])
/// descriptor.fetchLimit = 20
/// let items = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<Model: PersistentModel> {
    /// Which objects match (`nil`: all of them).
    public var predicate: Predicate<Model>?
    /// The order of the results, most significant first (`[]`: insertion order).
    public var sortBy: [SortDescriptor<Model>]
    /// At most this many results (`nil`: no limit).
    public var fetchLimit: Int?
    /// Skip this many results first (`nil`: none).
    public var fetchOffset: Int?
    /// Whether the context's unsaved inserts, updates and deletes count (default `true`).
    public var includePendingChanges = true
    /// The properties to load with each object (`[]`: objects come back as faults that load
    /// every property on first access). Listing any loads all of an object's stored values
    /// at once, as Strata reads whole rows.
    public var propertiesToFetch: [PartialKeyPath<Model>] = []
    /// Relationships whose destination models are loaded with the results, in one pass
    /// instead of one fault per object (SwiftData's name; see
    /// ``FetchRequest/relationshipKeyPathsForPrefetching``).
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<Model>] = []

    /// A descriptor of the objects matching `predicate`, in the order of `sortBy`.
    public init(predicate: Predicate<Model>? = nil, sortBy: [SortDescriptor<Model>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension FetchDescriptor {
    /// The untyped request this descriptor stands for.
    ///
    /// - Throws: `.unsupportedPredicate` naming a construct of the predicate or a sort
    ///   descriptor that the engine cannot run; `.unknownKey` for a key path that is not a
    ///   persisted property.
    public func fetchRequest() throws(StrataError) -> FetchRequest {
        var request = FetchRequest(entityName: Model.entityName)
        if let predicate {
            request.predicate = try PredicateTranslator.translate(predicate)
        }
        request.sortKeys = try sortBy.map { descriptor throws(StrataError) in try SortTranslator.sortKey(descriptor) }
        request.fetchLimit = max(0, fetchLimit ?? 0)
        request.fetchOffset = max(0, fetchOffset ?? 0)
        request.includesPendingChanges = includePendingChanges
        if !propertiesToFetch.isEmpty {
            request.propertiesToFetch = try propertiesToFetch.map { keyPath throws(StrataError) in
                guard let name = Model._$propertyName(for: keyPath) else {
                    throw StrataError(.unknownKey, "\(keyPath) is not a persisted property of \(Model.entityName).", entity: Model.entityName)
                }
                return name
            }
            request.returnsObjectsAsFaults = false
        }
        request.relationshipKeyPathsForPrefetching = try relationshipKeyPathsForPrefetching.map { keyPath throws(StrataError) in
            guard let name = Model._$propertyName(for: keyPath) else {
                throw StrataError(.unknownKey, "\(keyPath) is not a persisted property of \(Model.entityName).", entity: Model.entityName)
            }
            return name
        }
        return request
    }
}
