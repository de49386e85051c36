extension Entity {
    /// Every validation rule that an object's values break, all at once.
    ///
    /// Checks, in declaration order: each attribute's requiredness (a missing key counts as
    /// `nil`), then its rules in order (rules skip `nil`); then each non-optional
    /// relationship, which must have at least one related object. Keys that are not
    /// attributes are ignored here (``checkTypes(of:)`` reports them).
    ///
    /// For example:
    /// ```swift
    /// let problems = entity.violations(of: ["name": ""], relationshipCounts: ["list": 1],
    ///                                  object: objectID.uriRepresentation)
    /// ```
    ///
    /// - Parameters:
    ///   - values: The object's attribute values by name.
    ///   - relationshipCounts: The number of related objects per relationship name; a missing
    ///     relationship counts as 0.
    ///   - object: How violations name the object (an object ID URI, for example).
    /// - Returns: The violations, empty when the object is valid.
    /// - Complexity: O(attributes + relationships), plus the cost of each rule.
    public func violations(
        of values: [String: AttributeValue],
        relationshipCounts: [String: Int] = [:],
        object: String
    ) -> [ValidationViolation] {
        var found: [ValidationViolation] = []
        for attribute in attributes {
            let value = values[attribute.name] ?? .null
            if value.isNull {
                if !attribute.isOptional {
                    found.append(ValidationViolation(
                        entity: name, object: object, key: attribute.name, value: value, rule: .required))
                }
                continue
            }
            for rule in attribute.validationRules where !rule.accepts(value) {
                found.append(ValidationViolation(
                    entity: name, object: object, key: attribute.name, value: value, rule: .rule(rule)))
            }
        }
        for relationship in relationships where !relationship.isOptional {
            let count = relationshipCounts[relationship.name] ?? 0
            if count < 1 {
                found.append(ValidationViolation(
                    entity: name, object: object, key: relationship.name, value: .int(Int64(count)),
                    rule: .required))
            }
        }
        return found
    }

    /// Type-checks an object's values, then validates them, throwing on the first type error
    /// or with every violation together.
    ///
    /// - Throws: `StrataError` `.unknownKey` or `.typeMismatch` from ``checkTypes(of:)``;
    ///   `.validation` listing every violation, with a ``ValidationFailure`` as its cause.
    /// - Complexity: O(attributes + relationships + values), plus the cost of each rule.
    public func validate(
        _ values: [String: AttributeValue],
        relationshipCounts: [String: Int] = [:],
        object: String
    ) throws(StrataError) {
        try checkTypes(of: values)
        let found = violations(of: values, relationshipCounts: relationshipCounts, object: object)
        if !found.isEmpty { throw ValidationFailure(found).error }
    }
}
