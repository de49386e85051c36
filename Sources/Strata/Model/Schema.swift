/// The schema of a store: its entities, their attributes and relationships.
///
/// The schema is stored in the store itself, so tools such as the `strata` inspector can
/// read a store without application code.
public struct Schema: Sendable, Hashable {
    /// The entities, in declaration order.
    public var entities: [Entity]

    /// Creates a schema from entities.
    public init(entities: [Entity]) {
        self.entities = entities
    }

    /// The entity with this exact name, or `nil`.
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }
}

/// An entity: a kind of object, like a table in SQL.
public struct Entity: Sendable, Hashable {
    /// The entity's name, unique within its schema (for example `"Person"`).
    public var name: String
    /// The attributes, in declaration order.
    public var attributes: [Attribute]
    /// The relationships, in declaration order.
    public var relationships: [Relationship]
    /// The indexes: each one lists the attributes and to-one relationships it orders rows
    /// by, most significant first (`[["email"], ["lastName", "firstName"]]`). The store keeps
    /// them up to date at every commit and batch request, and fetches use them; see
    /// <doc:FetchingAndPredicateSyntax>. Adding or removing one is a lightweight change.
    public var indexes: [[String]]
    /// The uniqueness constraints (Core Data's `uniquenessConstraints`): each one lists the
    /// attributes and to-one relationships whose values, taken together, no two rows may
    /// share (`[["email"], ["firstName", "lastName"]]`). A row with `nil` in any of them is
    /// exempt, as in SQL. Each is backed by an index on the same properties (a declared one
    /// when it lists them, in any order), so checking a save is a probe, not a scan. A save
    /// that would break one throws `.constraintConflict` unless the context's
    /// ``MergePolicy`` resolves it; see <doc:FetchingAndPredicateSyntax>.
    public var uniquenessConstraints: [[String]]
    /// The entity's name in the previous schema version when it was renamed (Core Data's
    /// renaming identifier); see <doc:MigratingAStore>. Never stored in the store.
    public var originalName: String?

    /// Creates an entity.
    public init(name: String, attributes: [Attribute] = [], relationships: [Relationship] = [],
                indexes: [[String]] = [], uniquenessConstraints: [[String]] = []) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.indexes = indexes
        self.uniquenessConstraints = uniquenessConstraints
    }

    /// The attribute with this exact name, or `nil`.
    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }

    /// The relationship with this exact name, or `nil`.
    public func relationship(named name: String) -> Relationship? {
        relationships.first { $0.name == name }
    }

    /// Every property name (attributes then relationships), in declaration order.
    public var propertyNames: [String] {
        attributes.map(\.name) + relationships.map(\.name)
    }
}

/// An attribute of an entity: a named, typed value.
public struct Attribute: Sendable, Hashable {
    /// The attribute's name, unique among the entity's properties.
    public var name: String
    /// The type of its values.
    public var type: AttributeType
    /// Whether the attribute may be `nil` (`.null`).
    public var isOptional: Bool
    /// The value a newly inserted object starts with (`.null` when there is none).
    public var defaultValue: AttributeValue
    /// The validation rules a non-`nil` value must pass, in the order they are checked.
    ///
    /// Whether the attribute is required is ``isOptional``, not a rule. See ``ValidationRule``
    /// for how custom (closure) rules compare and why they are not written to JSON.
    public var validationRules: [ValidationRule]
    /// The attribute's name in the previous schema version when it was renamed (Core Data's
    /// renaming identifier); see <doc:MigratingAStore>. Never stored in the store.
    public var originalName: String?

    /// Creates an attribute.
    public init(name: String, type: AttributeType, isOptional: Bool = false,
                defaultValue: AttributeValue = .null, validationRules: [ValidationRule] = []) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.validationRules = validationRules
    }
}

/// What happens to related objects when an object is deleted (Core Data's delete rules).
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Remove the deleted object from the related objects' inverse relationship.
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the delete while the relationship is not empty.
    case deny
    /// Do nothing to the related objects (their inverse may then point at a deleted object).
    case noAction
}

/// A relationship from one entity to another, to-one or to-many, always with an inverse.
public struct Relationship: Sendable, Hashable {
    /// The relationship's name, unique among the entity's properties.
    public var name: String
    /// The name of the entity it points to.
    public var destination: String
    /// The name of the inverse relationship on the destination entity.
    public var inverse: String
    /// Whether it holds many objects (`true`) or at most one (`false`).
    public var isToMany: Bool
    /// Whether it may be empty (`nil` for to-one).
    public var isOptional: Bool
    /// What deleting the source object does to the destination objects.
    public var deleteRule: DeleteRule
    /// The relationship's name in the previous schema version when it was renamed (Core
    /// Data's renaming identifier, SwiftData's `@Relationship(originalName:)`); see
    /// <doc:MigratingAStore>. Never stored in the store.
    public var originalName: String?

    /// Creates a relationship.
    public init(name: String, destination: String, inverse: String, isToMany: Bool = false,
                isOptional: Bool = true, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOptional = isOptional
        self.deleteRule = deleteRule
    }
}
