/// Rows that share the values of a uniqueness constraint (see
/// ``Entity/uniquenessConstraints``): the cause of a `.constraintConflict` error.
///
/// For example:
/// ```swift
/// do {
///     try context.save()
/// } catch let error as StrataError where error.code == .constraintConflict {
///     let conflicts = (error.cause as? UniquenessConflicts)?.conflicts ?? []
///     for conflict in conflicts { print(conflict.properties, conflict.objectIDs) }
/// }
/// ```
public struct UniquenessConflict: Sendable, Hashable {
    /// The entity whose constraint is broken.
    public var entityName: String
    /// The constraint's properties.
    public var properties: [String]
    /// The values the rows share, one per property.
    public var values: [AttributeValue]
    /// The objects that share them: the rows already in the store and the objects being
    /// saved (or, for a batch insert, the rows it would add, by the IDs they would get).
    public var objectIDs: [ObjectID]
}

/// Every broken uniqueness constraint of a refused save, batch insert or migration (the
/// `cause` of its `.constraintConflict` error).
public struct UniquenessConflicts: Error, Sendable, CustomStringConvertible {
    /// The conflicts, one per group of rows sharing a constrained value.
    public var conflicts: [UniquenessConflict]
    /// How many groups there were in all (more than `conflicts.count` when the list was
    /// capped, as a migration over a large store caps it).
    public var totalCount: Int

    /// `"<n> uniqueness conflict(s)"`.
    public var description: String { "\(totalCount) uniqueness conflict(s)" }
}

extension StrataError.Code {
    /// A save, batch insert or migration would leave two rows sharing the values of a
    /// uniqueness constraint; the cause is a ``UniquenessConflicts``.
    public static let constraintConflict = Self(rawValue: "constraintConflict")
}

extension UniquenessConflict {
    /// The most IDs a message lists per conflict (``objectIDs`` has them all).
    static let listedIDs = 10

    /// `Person [email] = ["a@example.com"] is shared by Person 3, Person 7`.
    var summary: String {
        let shown = values.map { $0.jsonValue.serialized(pretty: false) }.joined(separator: ", ")
        var ids = objectIDs.prefix(Self.listedIDs).map { "\($0.entityName) \($0.primaryKey)" }.joined(separator: ", ")
        if objectIDs.count > Self.listedIDs { ids += " and \(objectIDs.count - Self.listedIDs) more" }
        return "\(entityName) [\(properties.joined(separator: ", "))] = [\(shown)] is shared by \(ids)"
    }
}

extension UniquenessConflicts {
    /// The `.constraintConflict` error with these conflicts as cause; `what` says what was
    /// refused and `advice` what to do.
    func error(_ what: String, advice: String) -> StrataError {
        var message = "\(what): " + conflicts.map(\.summary).joined(separator: "; ")
        if totalCount > conflicts.count { message += "; and \(totalCount - conflicts.count) more" }
        message += ". " + advice
        let entities = Set(conflicts.map(\.entityName))
        return StrataError(.constraintConflict, message, entity: entities.count == 1 ? entities.first : nil,
                           key: conflicts.count == 1 ? conflicts[0].properties.first : nil, cause: self)
    }
}
