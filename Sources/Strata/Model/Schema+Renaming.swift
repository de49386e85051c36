extension Attribute {
    /// Creates an attribute that was called `originalName` in the previous schema version,
    /// builder style: a lightweight migration carries its values over under the new name.
    ///
    /// For example:
    /// ```swift
    /// Attribute("title", .string, originalName: "name")
    /// ```
    public init(_ name: String, _ type: AttributeType, optional: Bool = false,
                default defaultValue: AttributeValue = .null, originalName: String) {
        self.init(name: name, type: type, isOptional: optional, defaultValue: defaultValue)
        self.originalName = originalName
    }
}

extension Entity {
    /// Creates an entity that was called `originalName` in the previous schema version
    /// (Core Data's renaming identifier): a lightweight migration keeps its rows, their
    /// primary keys and the relationships that point to them.
    ///
    /// For example:
    /// ```swift
    /// Entity("Book", originalName: "Title") {
    ///     Attribute("title", .string)
    /// }
    /// ```
    public init(_ name: String, originalName: String,
                @EntityBuilder _ properties: () -> [EntityProperty] = { [] }) {
        self.init(name, properties)
        self.originalName = originalName
    }
}

extension Relationship {
    /// Creates a relationship that was called `originalName` in the previous schema version,
    /// builder style: a lightweight migration keeps which objects it relates (a to-one's
    /// keys are carried over under the new name; a to-many is the inverse of a to-one).
    ///
    /// Name the inverse by its new name on both sides; the inverse may be renamed in the
    /// same migration.
    ///
    /// For example:
    /// ```swift
    /// Relationship("writer", to: "Author", inverse: "books", originalName: "author")
    /// ```
    public init(_ name: String, to destination: String, inverse: String, toMany: Bool = false,
                optional: Bool = true, deleteRule: DeleteRule = .nullify, originalName: String) {
        self.init(name: name, destination: destination, inverse: inverse, isToMany: toMany,
                  isOptional: optional, deleteRule: deleteRule)
        self.originalName = originalName
    }
}

extension Schema {
    /// This schema without renaming identifiers (`originalName` on entities, attributes and
    /// relationships): what a store records once a migration has used them.
    public var withoutOriginalNames: Schema {
        var copy = self
        for e in copy.entities.indices {
            copy.entities[e].originalName = nil
            for a in copy.entities[e].attributes.indices { copy.entities[e].attributes[a].originalName = nil }
            for r in copy.entities[e].relationships.indices { copy.entities[e].relationships[r].originalName = nil }
        }
        return copy
    }
}
