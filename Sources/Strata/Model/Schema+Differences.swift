extension Schema {
    /// How this schema differs from `other` (the older one, such as the schema stored in a
    /// store): "added" means present here and not there.
    ///
    /// Entities and properties are matched by name; declaration order, and custom
    /// validation rules (which are code, and not stored), are not compared. The list is in a
    /// stable order: this schema's entities in declaration order, each with its attribute then
    /// relationship changes, then the entities removed, in `other`'s order.
    ///
    /// For example:
    /// ```swift
    /// let changes = appSchema.differences(from: storedSchema)
    /// if changes.contains(where: \.requiresMigration) {
    ///     print(changes.map(\.description).joined(separator: "\n"))
    /// }
    /// ```
    ///
    /// - Returns: The differences, empty when the schemas are equivalent.
    /// - Complexity: O(n²) in the number of entities and properties per entity.
    public func differences(from other: Schema) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for entity in entities {
            guard let old = other.entity(named: entity.name) else {
                result.append(.entityAdded(entity.name))
                continue
            }
            result += entity.attributeDifferences(from: old)
            result += entity.relationshipDifferences(from: old)
        }
        for old in other.entities where entity(named: old.name) == nil {
            result.append(.entityRemoved(old.name))
        }
        return result
    }
}

extension Entity {
    /// Attribute changes from `old`, which has the same name.
    fileprivate func attributeDifferences(from old: Entity) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for attribute in attributes {
            guard let previous = old.attribute(named: attribute.name) else {
                result.append(.attributeAdded(entity: name, attribute: attribute.name))
                continue
            }
            if attribute.type != previous.type {
                result.append(.attributeTypeChanged(entity: name, attribute: attribute.name,
                                                    from: previous.type, to: attribute.type))
            }
            if attribute.isOptional != previous.isOptional {
                result.append(.attributeOptionalityChanged(entity: name, attribute: attribute.name,
                                                           isOptional: attribute.isOptional))
            }
            if attribute.defaultValue != previous.defaultValue {
                result.append(.attributeDefaultChanged(entity: name, attribute: attribute.name))
            }
            if attribute.validationRules.filter(\.isSerializable)
                != previous.validationRules.filter(\.isSerializable) {
                result.append(.attributeValidationChanged(entity: name, attribute: attribute.name))
            }
        }
        for previous in old.attributes where attribute(named: previous.name) == nil {
            result.append(.attributeRemoved(entity: name, attribute: previous.name))
        }
        return result
    }

    /// Relationship changes from `old`, which has the same name.
    fileprivate func relationshipDifferences(from old: Entity) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for relationship in relationships {
            let key = relationship.name
            guard let previous = old.relationship(named: key) else {
                result.append(.relationshipAdded(entity: name, relationship: key))
                continue
            }
            if relationship.destination != previous.destination {
                result.append(.relationshipDestinationChanged(entity: name, relationship: key,
                                                              from: previous.destination, to: relationship.destination))
            }
            if relationship.inverse != previous.inverse {
                result.append(.relationshipInverseChanged(entity: name, relationship: key,
                                                          from: previous.inverse, to: relationship.inverse))
            }
            if relationship.isToMany != previous.isToMany {
                result.append(.relationshipCardinalityChanged(entity: name, relationship: key,
                                                              isToMany: relationship.isToMany))
            }
            if relationship.isOptional != previous.isOptional {
                result.append(.relationshipOptionalityChanged(entity: name, relationship: key,
                                                              isOptional: relationship.isOptional))
            }
            if relationship.deleteRule != previous.deleteRule {
                result.append(.relationshipDeleteRuleChanged(entity: name, relationship: key,
                                                             from: previous.deleteRule, to: relationship.deleteRule))
            }
        }
        for previous in old.relationships where relationship(named: previous.name) == nil {
            result.append(.relationshipRemoved(entity: name, relationship: previous.name))
        }
        return result
    }
}
