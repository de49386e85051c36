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

extension Schema {
    /// This schema without renaming identifiers (`originalName` on entities and
    /// attributes): what a store records once a migration has used them.
    public var withoutOriginalNames: Schema {
        var copy = self
        for e in copy.entities.indices {
            copy.entities[e].originalName = nil
            for a in copy.entities[e].attributes.indices { copy.entities[e].attributes[a].originalName = nil }
        }
        return copy
    }
}
