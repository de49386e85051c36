extension Schema {
    /// The schema of `@Model` classes: one entity per class, named after it, with its
    /// persisted properties in declaration order — the same ``Schema`` the builder makes
    /// for the same entities, so a store and the `strata` inspector see nothing new.
    ///
    /// A relationship's inverse is the one `@Relationship(inverse:)` names on either side;
    /// without one, the only relationship of the destination that points back is taken.
    ///
    /// For example:
    /// ```swift
    /// let store = try PersistentStore.open(at: "todo.strata", schema: Schema(TodoList.self, TodoItem.self))
    /// ```
    ///
    /// - Throws: `.invalidSchema` for a relationship whose inverse is missing or ambiguous
    ///   (it names the property and says to add `@Relationship(inverse:)`), and for every
    ///   problem ``Schema/validate()`` finds.
    public init(_ models: any PersistentModel.Type...) throws(StrataError) {
        try self.init(models: models)
    }

    /// ``init(_:)-(any PersistentModel.Type...)`` for a list of model classes.
    public init(models: [any PersistentModel.Type]) throws(StrataError) {
        let described = models.map { ($0.entityName, $0._$layout.properties) }
        var entities: [Entity] = []
        for (model, (name, properties)) in zip(models, described) {
            var attributes: [Attribute] = []
            var relationships: [Relationship] = []
            var unique: [[String]] = []
            for property in properties {
                switch property.role {
                case .attribute(let type, let optional):
                    var attribute = Attribute(name: property.name, type: type, isOptional: optional,
                                              defaultValue: property.defaultValue).applying(property.options)
                    attribute.originalName = property.originalName
                    attributes.append(attribute)
                    if property.options.contains(where: \.isUnique) { unique.append([property.name]) }
                case .toOne(let destination), .toMany(let destination):
                    let inverse = try Self.inverse(of: property, in: name, destination: destination, among: described)
                    var isToMany = false
                    if case .toMany = property.role { isToMany = true }
                    var relationship = Relationship(name: property.name, destination: destination, inverse: inverse,
                                                    isToMany: isToMany, isOptional: true, deleteRule: property.deleteRule)
                    relationship.originalName = property.originalName
                    relationships.append(relationship)
                }
            }
            var entity = Entity(name: name, attributes: attributes, relationships: relationships,
                                indexes: try Self.keyPathLists(model._$indexKeyPaths, of: model, macro: "#Index"))
            for constraint in try Self.keyPathLists(model._$uniqueKeyPaths, of: model, macro: "#Unique") where !unique.contains(constraint) {
                unique.append(constraint)
            }
            entity.uniquenessConstraints = unique
            entity.originalName = model.originalEntityName
            entities.append(entity)
        }
        self = try Schema(entities: entities).validated()
    }

    /// The property names of the key path lists `macro` (`#Index`, `#Unique`) declares on `model`.
    private static func keyPathLists(_ lists: [[AnyKeyPath]], of model: any PersistentModel.Type,
                                     macro: String) throws(StrataError) -> [[String]] {
        var result: [[String]] = []
        for keyPaths in lists {
            var names: [String] = []
            for keyPath in keyPaths {
                guard let name = model._$propertyName(for: keyPath) else {
                    throw StrataError(.invalidSchema, "\(macro) on \(model.entityName) lists \(keyPath), which is not a persisted property; list stored attributes and to-one relationships only.", entity: model.entityName)
                }
                names.append(name)
            }
            result.append(names)
        }
        return result
    }

    private static func inverse(of property: ModelProperty, in entity: String, destination: String,
                                among models: [(String, [ModelProperty])]) throws(StrataError) -> String {
        if let inverse = property.inverse { return inverse }
        guard let target = models.first(where: { $0.0 == destination })?.1 else {
            throw StrataError(.invalidSchema, "\(entity).\(property.name) points to \(destination), which is not among the models given to Schema(...); add \(destination).self.", entity: entity, key: property.name)
        }
        if let named = target.first(where: { $0.inverse == property.name && $0.pointsTo(entity) }) { return named.name }
        let candidates = target.filter { $0.pointsTo(entity) && $0.inverse == nil && !(destination == entity && $0.name == property.name) }
        guard candidates.count == 1 else {
            let what = candidates.isEmpty ? "has no relationship back to \(entity)" : "has several relationships back to \(entity) (\(candidates.map(\.name).joined(separator: ", ")))"
            throw StrataError(.invalidSchema, "\(entity).\(property.name): \(destination) \(what); every relationship needs an inverse. Write @Relationship(inverse: \\\(destination).<property>) on one side.", entity: entity, key: property.name)
        }
        return candidates[0].name
    }
}

extension ModelProperty {
    /// Whether it is a relationship to `entity`.
    func pointsTo(_ entity: String) -> Bool {
        switch role {
        case .toOne(let destination), .toMany(let destination): return destination == entity
        case .attribute: return false
        }
    }
}
