/// Builds a schema's entities from a list of `Entity(...)` declarations, with `if`, `switch`
/// and `for` allowed. See ``Schema/init(_:)``.
@resultBuilder
public enum SchemaBuilder {
    /// One entity.
    public static func buildExpression(_ entity: Entity) -> [Entity] { [entity] }
    /// Several entities (for example from a helper function).
    public static func buildExpression(_ entities: [Entity]) -> [Entity] { entities }
    /// The statements of a block, in order.
    public static func buildBlock(_ parts: [Entity]...) -> [Entity] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [Entity]?) -> [Entity] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [Entity]) -> [Entity] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [Entity]) -> [Entity] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[Entity]]) -> [Entity] { parts.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ part: [Entity]) -> [Entity] { part }
}

/// An attribute or a relationship, as listed in an ``Entity`` builder.
public enum EntityProperty: Sendable, Hashable {
    /// An attribute.
    case attribute(Attribute)
    /// A relationship.
    case relationship(Relationship)
}

/// Builds an entity's properties from a list of `Attribute(...)` and `Relationship(...)`
/// declarations, with `if`, `switch` and `for` allowed. See ``Entity/init(_:_:)``.
@resultBuilder
public enum EntityBuilder {
    /// One attribute.
    public static func buildExpression(_ attribute: Attribute) -> [EntityProperty] { [.attribute(attribute)] }
    /// One relationship.
    public static func buildExpression(_ relationship: Relationship) -> [EntityProperty] {
        [.relationship(relationship)]
    }
    /// Several properties (for example from a helper function).
    public static func buildExpression(_ properties: [EntityProperty]) -> [EntityProperty] { properties }
    /// The statements of a block, in order.
    public static func buildBlock(_ parts: [EntityProperty]...) -> [EntityProperty] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [EntityProperty]?) -> [EntityProperty] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [EntityProperty]) -> [EntityProperty] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [EntityProperty]) -> [EntityProperty] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[EntityProperty]]) -> [EntityProperty] { parts.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ part: [EntityProperty]) -> [EntityProperty] { part }
}

extension Schema {
    /// Builds and validates a schema.
    ///
    /// For example:
    /// ```swift
    /// let schema = try Schema {
    ///     Entity("TodoList") {
    ///         Attribute("title", .string).length(1...200)
    ///         Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
    ///     }
    ///     Entity("TodoItem") {
    ///         Attribute("name", .string)
    ///         Attribute("done", .bool, default: false)
    ///         Attribute("priority", .int16, optional: true).range(0...10)
    ///         Relationship("list", to: "TodoList", inverse: "items")
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: `StrataError` `.invalidSchema` listing every problem (see ``validate()``).
    public init(@SchemaBuilder _ entities: () -> [Entity]) throws(StrataError) {
        self = try Schema(entities: entities()).validated()
    }
}

extension Entity {
    /// Creates an entity from a list of attributes and relationships, keeping their order,
    /// with the indexes the store keeps on it (see ``indexes``) and its uniqueness constraints
    /// (see ``uniquenessConstraints``).
    ///
    /// For example:
    /// ```swift
    /// Entity("Person", indexes: [["lastName", "firstName"]], uniquenessConstraints: [["email"]]) {
    ///     Attribute("email", .string)
    ///     Attribute("firstName", .string)
    ///     Attribute("lastName", .string)
    ///     Attribute("age", .int16, optional: true).range(0...150)
    /// }
    /// ```
    public init(_ name: String, indexes: [[String]] = [], uniquenessConstraints: [[String]] = [],
                @EntityBuilder _ properties: () -> [EntityProperty] = { [] }) {
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        for property in properties() {
            switch property {
            case .attribute(let attribute): attributes.append(attribute)
            case .relationship(let relationship): relationships.append(relationship)
            }
        }
        self.init(name: name, attributes: attributes, relationships: relationships, indexes: indexes,
                  uniquenessConstraints: uniquenessConstraints)
    }
}

extension Relationship {
    /// Creates a relationship, builder style.
    ///
    /// For example:
    /// ```swift
    /// Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
    /// ```
    public init(_ name: String, to destination: String, inverse: String, toMany: Bool = false,
                optional: Bool = true, deleteRule: DeleteRule = .nullify) {
        self.init(name: name, destination: destination, inverse: inverse, isToMany: toMany,
                  isOptional: optional, deleteRule: deleteRule)
    }
}
