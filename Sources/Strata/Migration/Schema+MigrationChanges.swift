extension Schema {
    /// Every difference between `stored` (a store's schema) and this one, as a migration
    /// sees them: renames follow `originalName` (on entities, attributes and relationships), and each change
    /// says whether a lightweight migration can make it.
    ///
    /// Lightweight: adding an entity; removing one; renaming an entity, attribute or
    /// relationship; adding an attribute that is
    /// optional or has a default; removing or renaming an attribute; widening a type (int16 →
    /// int32 → int64, any integer → double); required → optional; optional → required when
    /// the attribute has a default (nils take it); changing defaults, validation rules and
    /// delete rules; adding or removing a relationship (a required to-one one needs a custom
    /// stage); a relationship becoming optional; adding or removing an index. Everything else
    /// needs a custom stage.
    ///
    /// For example:
    /// ```swift
    /// for change in newSchema.migrationChanges(from: store.schema) { print(change) }
    /// ```
    ///
    /// - Parameter rowCounts: rows per entity of `stored`, to fill in ``SchemaChange/rowsTouched``.
    /// - Complexity: O(n²) in the number of entities and properties per entity.
    public func migrationChanges(from stored: Schema, rowCounts: [String: Int] = [:]) -> [SchemaChange] {
        MigrationPlanner(old: stored, new: self, rowCounts: rowCounts).changes
    }
}

/// Matches a new schema against an old one: the changes (for people) and the mapping (for
/// the store).
struct MigrationPlanner {
    let old: Schema
    let new: Schema
    private(set) var changes: [SchemaChange] = []
    private(set) var mapping = SchemaMapping(entities: [])

    init(old: Schema, new: Schema, rowCounts: [String: Int]) {
        self.old = old
        self.new = new
        var used = Set<Int>()
        var sources: [Int?] = []
        for entity in new.entities {
            var source: Int?
            if let originalName = entity.originalName {
                source = old.entities.firstIndex { $0.name == originalName }
            }
            if source == nil || used.contains(source!) {
                source = old.entities.firstIndex { $0.name == entity.name }
            }
            if let found = source, used.contains(found) { source = nil }
            if let source { used.insert(source) }
            sources.append(source)
        }
        // Old entity name → new name, to compare relationship destinations across renames.
        var renamed: [String: String] = [:]
        // Old entity name → (old relationship name → new name), to compare inverses across renames.
        var renamedRelationships: [String: [String: String]] = [:]
        for (entity, source) in zip(new.entities, sources) {
            guard let source else { continue }
            renamed[old.entities[source].name] = entity.name
            for (relationship, before) in Self.relationshipSources(entity, old.entities[source]) {
                if let before { renamedRelationships[old.entities[source].name, default: [:]][before.name] = relationship.name }
            }
        }
        for (index, entity) in new.entities.enumerated() {
            let layout = EntityLayout(entity: entity, index: index, schema: new)
            guard let source = sources[index] else {
                changes.append(SchemaChange(kind: .entityAdded, entity: entity.name, summary: "entity '\(entity.name)' was added"))
                mapping.entities.append(.init(source: nil, properties: layout.properties.map { _ in nil }))
                continue
            }
            let previous = old.entities[source]
            let rows = rowCounts[previous.name] ?? 0
            if previous.name != entity.name {
                changes.append(SchemaChange(kind: .entityRenamed, entity: entity.name,
                                            summary: "entity '\(previous.name)' was renamed to '\(entity.name)'"))
            }
            let oldLayout = EntityLayout(entity: previous, index: source, schema: old)
            var properties: [Int?] = []
            let attributeSources = matchAttributes(entity, previous, rows: rows)
            let (reshaped, relationshipSource) = matchRelationships(entity, previous, rows: rows, renamed: renamed,
                                                                    renamedRelationships: renamedRelationships)
            for (position, property) in layout.properties.enumerated() {
                if position < entity.attributes.count {
                    // A column is carried over only when its values keep their meaning.
                    properties.append(attributeSources[position].flatMap { index -> Int? in
                        let before = previous.attributes[index]
                        let type = entity.attributes[position].type
                        guard before.type == type || Self.isWidening(from: before.type, to: type) else { return nil }
                        return oldLayout.propertyIndex[before.name]
                    })
                } else if reshaped.contains(property.name) {
                    properties.append(nil)
                } else {
                    properties.append(relationshipSource[property.name].flatMap { oldLayout.propertyIndex[$0] }.flatMap {
                        oldLayout.properties[$0].type == nil ? $0 : nil
                    })
                }
            }
            mapping.entities.append(.init(source: source, properties: properties))
            changes += Self.indexChanges(entity, previous)
        }
        for (index, entity) in old.entities.enumerated() where !used.contains(index) {
            changes.append(SchemaChange(kind: .entityRemoved, entity: entity.name,
                                        summary: "entity '\(entity.name)' was removed", rowsTouched: rowCounts[entity.name] ?? 0))
        }
    }

    /// Each attribute of `entity` with the index of its source in `previous` (or `nil`),
    /// recording the changes.
    private mutating func matchAttributes(_ entity: Entity, _ previous: Entity, rows: Int) -> [Int?] {
        var used = Set<Int>()
        var result: [Int?] = []
        for attribute in entity.attributes {
            let where_ = "'\(entity.name).\(attribute.name)'"
            var source: Int?
            if let originalName = attribute.originalName {
                source = previous.attributes.firstIndex { $0.name == originalName }
            }
            if source == nil || used.contains(source!) {
                source = previous.attributes.firstIndex { $0.name == attribute.name }
            }
            if let found = source, used.contains(found) { source = nil }
            // A relationship of the old entity with this name is not a source.
            guard let source else {
                let lightweight = attribute.isOptional || !attribute.defaultValue.isNull
                changes.append(SchemaChange(kind: .attributeAdded, entity: entity.name, property: attribute.name,
                                            summary: "attribute \(where_) was added" + (attribute.isOptional ? " (optional)" : attribute.defaultValue.isNull ? " (required, no default)" : " (with a default)"),
                                            customStageReason: lightweight ? nil : "existing rows need a value; give it a default or make it optional"))
                result.append(nil)
                continue
            }
            used.insert(source)
            result.append(source)
            let before = previous.attributes[source]
            if before.name != attribute.name {
                changes.append(SchemaChange(kind: .attributeRenamed, entity: entity.name, property: attribute.name,
                                            summary: "attribute '\(entity.name).\(before.name)' was renamed to '\(attribute.name)'"))
            }
            if before.type != attribute.type {
                let widening = Self.isWidening(from: before.type, to: attribute.type)
                let converts = widening && attribute.type == .double
                changes.append(SchemaChange(kind: .attributeTypeChanged, entity: entity.name, property: attribute.name,
                                            summary: "attribute \(where_) changed type from \(before.type.rawValue) to \(attribute.type.rawValue)",
                                            customStageReason: widening ? nil : "\(before.type.rawValue) → \(attribute.type.rawValue) is not a widening (only int16 → int32 → int64 and integer → double are)",
                                            rowsTouched: converts || !widening ? rows : 0))
            }
            if before.isOptional != attribute.isOptional {
                let reason: String? = attribute.isOptional || !attribute.defaultValue.isNull ? nil
                    : "rows holding nil need a value; give the attribute a default"
                changes.append(SchemaChange(kind: .attributeOptionalityChanged, entity: entity.name, property: attribute.name,
                                            summary: "attribute \(where_) became \(attribute.isOptional ? "optional" : "required")",
                                            customStageReason: reason, rowsTouched: attribute.isOptional ? 0 : rows))
            }
            if before.defaultValue != attribute.defaultValue {
                changes.append(SchemaChange(kind: .attributeDefaultChanged, entity: entity.name, property: attribute.name,
                                            summary: "attribute \(where_) changed its default value"))
            }
            if before.validationRules.filter(\.isSerializable) != attribute.validationRules.filter(\.isSerializable) {
                changes.append(SchemaChange(kind: .attributeValidationChanged, entity: entity.name, property: attribute.name,
                                            summary: "attribute \(where_) changed its validation rules"))
            }
        }
        for (index, before) in previous.attributes.enumerated() where !used.contains(index) {
            changes.append(SchemaChange(kind: .attributeRemoved, entity: entity.name, property: before.name,
                                        summary: "attribute '\(entity.name).\(before.name)' was removed"))
        }
        return result
    }

    /// Each relationship of `entity` with its source in `previous`: the one its
    /// `originalName` names, else the one of the same name (each used once), or `nil`.
    static func relationshipSources(_ entity: Entity, _ previous: Entity) -> [(Relationship, Relationship?)] {
        var used = Set<String>()
        return entity.relationships.map { relationship in
            var source = relationship.originalName.flatMap { previous.relationship(named: $0) }
            if source == nil || used.contains(source!.name) { source = previous.relationship(named: relationship.name) }
            if let found = source, used.contains(found.name) { source = nil }
            if let source { used.insert(source.name) }
            return (relationship, source)
        }
    }

    /// Records the relationship changes of `entity` from `previous` (matched by
    /// `originalName`, else by name), and returns the names of those whose shape changed
    /// (their keys are not carried over) and each new relationship's source name.
    private mutating func matchRelationships(_ entity: Entity, _ previous: Entity, rows: Int, renamed: [String: String],
                                             renamedRelationships: [String: [String: String]])
        -> (reshaped: Set<String>, sources: [String: String]) {
        var reshaped = Set<String>()
        var sources: [String: String] = [:]
        for (relationship, source) in Self.relationshipSources(entity, previous) {
            let where_ = "'\(entity.name).\(relationship.name)'"
            guard let before = source else {
                let reason: String? = relationship.isToMany || relationship.isOptional ? nil
                    : "existing rows need a destination; make it optional"
                changes.append(SchemaChange(kind: .relationshipAdded, entity: entity.name, property: relationship.name,
                                            summary: "relationship \(where_) was added", customStageReason: reason))
                continue
            }
            sources[relationship.name] = before.name
            if before.name != relationship.name {
                changes.append(SchemaChange(kind: .relationshipRenamed, entity: entity.name, property: relationship.name,
                                            summary: "relationship '\(entity.name).\(before.name)' was renamed to '\(relationship.name)'"))
            }
            let destination = renamed[before.destination] ?? "\(before.destination) (removed)"
            let inverse = renamedRelationships[before.destination]?[before.inverse] ?? before.inverse
            if destination != relationship.destination || inverse != relationship.inverse
                || before.isToMany != relationship.isToMany {
                var what: [String] = []
                if destination != relationship.destination { what.append("destination \(before.destination) → \(relationship.destination)") }
                if inverse != relationship.inverse { what.append("inverse '\(before.inverse)' → '\(relationship.inverse)'") }
                if before.isToMany != relationship.isToMany { what.append(relationship.isToMany ? "to-one → to-many" : "to-many → to-one") }
                reshaped.insert(relationship.name)
                changes.append(SchemaChange(kind: .relationshipShapeChanged, entity: entity.name, property: relationship.name,
                                            summary: "relationship \(where_) changed its \(what.joined(separator: ", "))",
                                            customStageReason: "which objects it relates cannot be inferred"))
            }
            if before.isOptional != relationship.isOptional {
                let reason: String? = relationship.isOptional ? nil : "rows without a destination would break the new rule"
                changes.append(SchemaChange(kind: .relationshipOptionalityChanged, entity: entity.name, property: relationship.name,
                                            summary: "relationship \(where_) became \(relationship.isOptional ? "optional" : "required")",
                                            customStageReason: reason))
            }
            if before.deleteRule != relationship.deleteRule {
                changes.append(SchemaChange(kind: .relationshipDeleteRuleChanged, entity: entity.name, property: relationship.name,
                                            summary: "relationship \(where_) changed its delete rule from \(before.deleteRule.rawValue) to \(relationship.deleteRule.rawValue)"))
            }
        }
        let kept = Set(sources.values)
        for before in previous.relationships where !kept.contains(before.name) {
            changes.append(SchemaChange(kind: .relationshipRemoved, entity: entity.name, property: before.name,
                                        summary: "relationship '\(entity.name).\(before.name)' was removed"))
        }
        return (reshaped, sources)
    }

    /// The indexes of `entity` that `previous` lacked, then those it had and `entity` lacks,
    /// then the same for uniqueness constraints (compared by property names, in order).
    /// All are lightweight and touch no row.
    static func indexChanges(_ entity: Entity, _ previous: Entity) -> [SchemaChange] {
        func describe(_ index: [String]) -> String { "[\(index.joined(separator: ", "))]" }
        let added = entity.indexes.filter { !previous.indexes.contains($0) }.map { index in
            SchemaChange(kind: .indexAdded, entity: entity.name, property: index.first,
                         summary: "index \(describe(index)) was added to '\(entity.name)'")
        }
        let removed = previous.indexes.filter { !entity.indexes.contains($0) }.map { index in
            SchemaChange(kind: .indexRemoved, entity: entity.name, property: index.first,
                         summary: "index \(describe(index)) was removed from '\(entity.name)'")
        }
        let constraintsAdded = entity.uniquenessConstraints.filter { !previous.uniquenessConstraints.contains($0) }.map { constraint in
            SchemaChange(kind: .uniquenessConstraintAdded, entity: entity.name, property: constraint.first,
                         summary: "uniqueness constraint \(describe(constraint)) was added to '\(entity.name)'")
        }
        let constraintsRemoved = previous.uniquenessConstraints.filter { !entity.uniquenessConstraints.contains($0) }.map { constraint in
            SchemaChange(kind: .uniquenessConstraintRemoved, entity: entity.name, property: constraint.first,
                         summary: "uniqueness constraint \(describe(constraint)) was removed from '\(entity.name)'")
        }
        return added + removed + constraintsAdded + constraintsRemoved
    }

    /// Whether every `from` value is exactly representable (or, for integer → double, the
    /// nearest double) as a `to` value.
    static func isWidening(from: AttributeType, to: AttributeType) -> Bool {
        let rank: [AttributeType: Int] = [.int16: 1, .int32: 2, .int64: 3]
        guard let source = rank[from] else { return false }
        if to == .double { return true }
        guard let target = rank[to] else { return false }
        return target > source
    }
}
