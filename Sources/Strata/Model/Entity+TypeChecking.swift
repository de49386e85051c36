extension Entity {
    /// Checks that `value` can be stored in the attribute `key` (`.null` always can; whether
    /// `nil` is allowed is validation's business).
    ///
    /// For example:
    /// ```swift
    /// try entity.checkType(of: "high", forKey: "priority")
    /// // typeMismatch: TodoItem.priority expects int16, but the value is a string
    /// ```
    ///
    /// - Throws: `StrataError` `.unknownKey` when the entity has no attribute `key` (naming
    ///   the nearest one), `.typeMismatch` naming the entity, key, expected type and the
    ///   value's kind (never the value).
    public func checkType(of value: AttributeValue, forKey key: String) throws(StrataError) {
        guard let attribute = attribute(named: key) else {
            if relationship(named: key) != nil {
                throw StrataError(
                    .typeMismatch,
                    "\(name).\(key) is a relationship, not an attribute; set related objects instead of a value",
                    entity: name, key: key)
            }
            throw StrataError(
                .unknownKey,
                "\(name) has no attribute '\(key)'" + Self.suggestion(for: key, among: attributes.map(\.name)),
                entity: name, key: key)
        }
        guard !value.conforms(to: attribute.type) else { return }
        var message = "\(name).\(key) expects \(attribute.type.rawValue), but the value is a \(value.kindName)"
        if case .int = value, let range = attribute.type.integerRange {
            message += " outside \(attribute.type.rawValue)'s range \(range.lowerBound)...\(range.upperBound)"
        }
        throw StrataError(.typeMismatch, message, entity: name, key: key)
    }

    /// Checks every value with ``checkType(of:forKey:)``, in a stable order (declared
    /// attributes first, then unknown keys sorted), and throws the first problem.
    ///
    /// - Throws: `StrataError` `.unknownKey` or `.typeMismatch`.
    /// - Complexity: O(attributes + values log values).
    public func checkTypes(of values: [String: AttributeValue]) throws(StrataError) {
        for attribute in attributes {
            if let value = values[attribute.name] {
                try checkType(of: value, forKey: attribute.name)
            }
        }
        for key in values.keys.sorted() where attribute(named: key) == nil {
            try checkType(of: values[key] ?? .null, forKey: key)
        }
    }

    /// `"; did you mean 'x'?"` for the closest candidate, or `""` when none is close.
    static func suggestion(for name: String, among candidates: [String]) -> String {
        guard let nearest = NameDistance.nearest(to: name, among: candidates) else { return "" }
        return "; did you mean '\(nearest)'?"
    }
}
