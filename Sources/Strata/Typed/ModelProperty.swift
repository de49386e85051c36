/// One persisted property of a model, as `@Model` describes it for the schema.
///
/// `@Model` lists them in declaration order in `_$properties`; ``Schema/init(_:)-(any PersistentModel.Type...)``
/// turns them into the entity's attributes and relationships.
public struct ModelProperty: Sendable {
    /// The property's name (the Swift name).
    public let name: String
    /// Attribute, to-one or to-many, with its type or destination.
    public let role: ModelValueKind<Void>.Role
    /// The declared default, when it is a literal or an enum case (recorded in the schema).
    public let defaultValue: AttributeValue
    /// The options of `@Attribute(...)`.
    public let options: [Attribute.Option]
    /// The property's name in the previous schema version, from `@Attribute(originalName:)`
    /// or `@Relationship(originalName:)` (a rename a lightweight migration follows), or `nil`.
    public let originalName: String?
    /// The delete rule of `@Relationship(deleteRule:)` (`.nullify` when not given).
    public let deleteRule: DeleteRule
    /// The inverse of `@Relationship(inverse:)`, by name, or `nil` to infer it.
    public let inverse: String?
    /// A relationship's destination class.
    public let destinationType: (any PersistentModel.Type)?

    /// Describes an attribute, or a relationship without `@Relationship`.
    public init<Value>(_ name: String, _ kind: ModelValueKind<Value>, options: [Attribute.Option] = [],
                       originalName: String? = nil) {
        self.init(name: name, kind: kind, defaultValue: .null, options: options, deleteRule: .nullify, inverse: nil,
                  originalName: originalName)
    }

    /// Describes an attribute with a declared default.
    public init<Value>(_ name: String, _ kind: ModelValueKind<Value>, default value: Value, options: [Attribute.Option] = [],
                       originalName: String? = nil) {
        let stored: AttributeValue
        if case .attribute = kind.role { stored = kind.encode(value) } else { stored = .null }
        self.init(name: name, kind: kind, defaultValue: stored, options: options, deleteRule: .nullify, inverse: nil,
                  originalName: originalName)
    }

    /// Describes a relationship declared with `@Relationship(deleteRule:originalName:inverse:)`.
    public init<Value, Destination: PersistentModel>(_ name: String, _ kind: ModelValueKind<Value>,
                                                     deleteRule: DeleteRule = .nullify, originalName: String? = nil,
                                                     inverse: PartialKeyPath<Destination>? = nil) {
        self.init(name: name, kind: kind, defaultValue: .null, options: [], deleteRule: deleteRule,
                  inverse: inverse.flatMap { Destination._$propertyName(for: $0) }, originalName: originalName)
    }

    /// Describes a relationship declared with `@Relationship(deleteRule:originalName:)` and no inverse.
    public init<Value>(_ name: String, _ kind: ModelValueKind<Value>, deleteRule: DeleteRule, originalName: String? = nil) {
        self.init(name: name, kind: kind, defaultValue: .null, options: [], deleteRule: deleteRule, inverse: nil,
                  originalName: originalName)
    }

    private init<Value>(name: String, kind: ModelValueKind<Value>, defaultValue: AttributeValue,
                        options: [Attribute.Option], deleteRule: DeleteRule, inverse: String?,
                        originalName: String? = nil) {
        self.name = name
        self.originalName = originalName
        switch kind.role {
        case .attribute(let type, let optional): role = .attribute(type, isOptional: optional)
        case .toOne(let destination): role = .toOne(destination: destination)
        case .toMany(let destination): role = .toMany(destination: destination)
        }
        self.defaultValue = defaultValue
        self.options = options
        self.deleteRule = deleteRule
        self.inverse = inverse
        destinationType = kind.modelType
    }
}

/// Where a model's persisted properties live in its entity's stored row: `@Model` builds
/// one per class from `_$properties` (`static let _$layout`).
///
/// A store lays out an entity's attributes, then its to-one relationships, in schema order;
/// the schema a model makes follows declaration order, so each property's place is known
/// once per class. A fetch or insert checks that the store's layout has the same names.
public struct ModelLayout: Sendable {
    /// The properties, in declaration order.
    public let properties: [ModelProperty]
    /// Each property's index in the stored row, or `nil` for a to-many relationship.
    let storedIndex: [Int?]
    /// The stored properties' names, in stored order.
    let storedNames: [String]

    /// Lays out `properties`.
    public init(_ properties: [ModelProperty]) {
        self.properties = properties
        var stored = [Int?](repeating: nil, count: properties.count)
        var names: [String] = []
        for (index, property) in properties.enumerated() {
            if case .attribute = property.role { stored[index] = names.count; names.append(property.name) }
        }
        for (index, property) in properties.enumerated() {
            if case .toOne = property.role { stored[index] = names.count; names.append(property.name) }
        }
        storedIndex = stored
        storedNames = names
    }
}
