extension Schema {
    /// Checks that the schema is self-consistent and returns it unchanged.
    ///
    /// For example:
    /// ```swift
    /// let schema = try Schema(entities: entities).validated()
    /// ```
    ///
    /// - Throws: `StrataError` `.invalidSchema`; see ``validate()``.
    public func validated() throws(StrataError) -> Schema {
        try validate()
        return self
    }

    /// Checks that the schema is self-consistent.
    ///
    /// The rules: entity names are unique; property names (attributes and relationships
    /// together) are unique within an entity; every name is an identifier (an ASCII letter or
    /// `_`, then letters, digits or `_`); each relationship's destination exists and its
    /// inverse exists on the destination and points back (destination and inverse name), and
    /// the two are not both to-many (this version cannot store a many-to-many relationship);
    /// each default value fits the attribute's type and passes its rules; each rule fits the
    /// attribute's type (ranges on numbers and dates with bounds of the attribute's kind,
    /// lengths on strings and binary data, patterns on strings and valid expressions) and
    /// its minimum is not above its maximum; numbers are finite; each index lists at least one
    /// attribute or to-one relationship of its entity, none twice, and no index is repeated.
    ///
    /// - Throws: `StrataError` `.invalidSchema` whose message lists every problem and how to
    ///   fix it; `entity` and `key` are set when there is a single problem.
    /// - Complexity: O(n log n) in the number of properties, plus compiling each pattern.
    public func validate() throws(StrataError) {
        let problems = consistencyProblems()
        guard let first = problems.first else { return }
        if problems.count == 1 {
            throw StrataError(.invalidSchema, "invalid schema: \(first.message)",
                              entity: first.entity, key: first.key)
        }
        var message = "invalid schema, \(problems.count) problems:"
        for problem in problems { message += "\n- \(problem.message)" }
        throw StrataError(.invalidSchema, message)
    }

    /// Every consistency problem, in declaration order.
    func consistencyProblems() -> [SchemaProblem] {
        var problems: [SchemaProblem] = []
        var seenEntities: Set<String> = []
        for entity in entities {
            if !Self.isIdentifier(entity.name) {
                problems.append(SchemaProblem(entity: entity.name, message:
                    "entity name '\(entity.name)' is not an identifier; use an ASCII letter or '_' followed by letters, digits or '_'"))
            }
            if !seenEntities.insert(entity.name).inserted {
                problems.append(SchemaProblem(entity: entity.name, message:
                    "entity '\(entity.name)' is defined more than once; rename or merge the duplicates"))
            }
            problems += entity.propertyNameProblems()
            for attribute in entity.attributes {
                problems += attribute.problems(in: entity.name)
            }
            for relationship in entity.relationships {
                problems += relationshipProblems(relationship, in: entity)
            }
            problems += entity.indexProblems()
            problems += entity.uniquenessConstraintProblems()
        }
        return problems
    }

    /// Problems with a relationship's destination and inverse.
    private func relationshipProblems(_ relationship: Relationship, in entity: Entity) -> [SchemaProblem] {
        let place = "relationship '\(entity.name).\(relationship.name)'"
        func problem(_ message: String) -> SchemaProblem {
            SchemaProblem(entity: entity.name, key: relationship.name, message: "\(place) \(message)")
        }
        guard let destination = self.entity(named: relationship.destination) else {
            return [problem("points to entity '\(relationship.destination)', which does not exist"
                + Entity.suggestion(for: relationship.destination, among: entities.map(\.name))
                + "; add that entity or fix the destination")]
        }
        guard let inverse = destination.relationship(named: relationship.inverse) else {
            return [problem("names the inverse '\(relationship.inverse)', but \(destination.name) has no such relationship"
                + Entity.suggestion(for: relationship.inverse, among: destination.relationships.map(\.name))
                + "; add it to \(destination.name) (pointing back to \(entity.name)) or fix the inverse")]
        }
        if inverse.destination != entity.name || inverse.inverse != relationship.name {
            return [problem("has the inverse \(destination.name).\(inverse.name), but that one points to "
                + "\(inverse.destination).\(inverse.inverse); make it point to \(entity.name).\(relationship.name)")]
        }
        // Reported once, from the side that sorts first.
        if relationship.isToMany, inverse.isToMany, (entity.name, relationship.name) <= (destination.name, inverse.name) {
            return [problem("and its inverse \(destination.name).\(inverse.name) are both to-many: a many-to-many relationship, "
                + "which this version of Strata cannot store; model it with an intermediate entity that has a to-one "
                + "relationship to each side")]
        }
        return []
    }

    /// Whether `name` is an ASCII identifier: a letter or `_`, then letters, digits or `_`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func isLetter(_ s: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_"
        }
        return isLetter(first) && name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }
}

/// One thing wrong with a schema, with what to do about it.
struct SchemaProblem: Sendable, Hashable {
    /// The entity involved.
    var entity: String?
    /// The property involved.
    var key: String?
    /// What is wrong and how to fix it.
    var message: String
}

extension Entity {
    /// Duplicate or malformed property names.
    fileprivate func propertyNameProblems() -> [SchemaProblem] {
        var problems: [SchemaProblem] = []
        var seen: Set<String> = []
        for key in propertyNames {
            if !Schema.isIdentifier(key) {
                problems.append(SchemaProblem(entity: name, key: key, message:
                    "property name '\(name).\(key)' is not an identifier; use an ASCII letter or '_' followed by letters, digits or '_'"))
            }
            if !seen.insert(key).inserted {
                problems.append(SchemaProblem(entity: name, key: key, message:
                    "entity '\(name)' has more than one property named '\(key)' (attributes and relationships share names); rename one"))
            }
        }
        return problems
    }
}

extension Attribute {
    /// Problems with the attribute's rules and default value.
    fileprivate func problems(in entity: String) -> [SchemaProblem] {
        let place = "attribute '\(entity).\(name)' (\(type.rawValue))"
        var problems: [SchemaProblem] = []
        func add(_ message: String) {
            problems.append(SchemaProblem(entity: entity, key: name, message: "\(place) \(message)"))
        }
        for rule in validationRules {
            if let problem = ruleProblem(rule) { add(problem) }
        }
        if case .double(let v) = defaultValue, !v.isFinite {
            add("has a default that is not a finite number; use a finite default or none")
        } else if !defaultValue.conforms(to: type) {
            add("has a default of kind \(defaultValue.kindName), which does not fit \(type.rawValue); give a \(type.rawValue) default or none")
        } else if problems.isEmpty {
            for rule in validationRules where !rule.accepts(defaultValue) {
                add("has a default that breaks its \(rule) rule; change the default or the rule")
            }
        }
        return problems
    }

    /// Why `rule` does not fit this attribute, or `nil` when it does.
    private func ruleProblem(_ rule: ValidationRule) -> String? {
        switch rule {
        case .range(let min, let max):
            let expected: String
            switch type {
            case .int16, .int32, .int64: expected = "integer"
            case .double: expected = "double"
            case .date: expected = "date"
            default: return "has a range rule, but ranges apply to numbers and dates only; remove it or use a length or pattern rule"
            }
            for bound in [min, max].compactMap({ $0 }) {
                if case .double(let v) = bound, !v.isFinite {
                    return "has a range bound that is not a finite number; use a finite bound or leave it open"
                }
                if bound.kindName != expected {
                    return "has a range bound of kind \(bound.kindName); bounds of a \(type.rawValue) attribute must be of kind \(expected)"
                }
            }
            if let min, let max, let order = min.rangeOrder(comparedTo: max), order > 0 {
                return "has a range rule whose minimum is above its maximum; swap them"
            }
        case .length(let min, let max):
            guard type == .string || type == .binary else {
                return "has a length rule, but lengths apply to strings and binary data only; remove it or use a range rule"
            }
            if let min, min < 0 { return "has a length rule with a negative minimum; use 0 or more" }
            if let max, max < 0 { return "has a length rule with a negative maximum; use 0 or more" }
            if let min, let max, min > max { return "has a length rule whose minimum is above its maximum; swap them" }
        case .pattern(let pattern):
            guard type == .string else {
                return "has a pattern rule, but patterns apply to strings only; remove it"
            }
            if let reason = PatternCache.compileError(for: pattern) {
                return "has the pattern /\(pattern)/, but \(reason); fix the expression"
            }
        case .custom(let custom):
            if custom.name.isEmpty { return "has a custom rule without a name; name it" }
        }
        return nil
    }
}
