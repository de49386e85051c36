/// Reads the members of one JSON object of a schema file, producing `.invalidSchema` errors
/// that say where the problem is (`attribute 'Person.age'`) and what is expected.
struct JSONObjectReader {
    /// Where this object is, for messages: `entity 'Person'`, `attribute 'Person.age'`.
    var place: String
    /// The entity involved, for the error's `entity` field.
    var entity: String?
    /// The property involved, for the error's `key` field.
    var key: String?
    private var members: [String: JSONValue] = [:]

    /// Reads `value`, which must be an object whose keys are all in `allowedKeys` (any keys
    /// when `nil`, to read a name before the place can be named).
    init(_ value: JSONValue, place: String, allowedKeys: [String]?, entity: String? = nil,
         key: String? = nil) throws(StrataError) {
        self.place = place
        self.entity = entity
        self.key = key
        guard case .object(let pairs) = value else {
            throw fail("must be a JSON object, but it is \(value.kindDescription)")
        }
        for pair in pairs {
            if let allowedKeys, !allowedKeys.contains(pair.key) {
                let hint = NameDistance.nearest(to: pair.key, among: allowedKeys)
                    .map { " (did you mean \"\($0)\"?)" } ?? ""
                throw fail("has the unknown key \"\(pair.key)\"\(hint); the keys are "
                    + allowedKeys.map { "\"\($0)\"" }.joined(separator: ", "))
            }
            members[pair.key] = pair.value
        }
    }

    /// The member `name`, or `nil` when it is missing or `null`.
    func optional(_ name: String) -> JSONValue? {
        guard let value = members[name] else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// The string member `name`, which must be present.
    func requiredString(_ name: String) throws(StrataError) -> String {
        guard let value = optional(name) else { throw fail("is missing the key \"\(name)\"") }
        guard case .string(let string) = value else {
            throw fail("has \"\(name)\" as \(value.kindDescription); it must be a string")
        }
        return string
    }

    /// The boolean member `name`, or `fallback` when it is missing.
    func bool(_ name: String, default fallback: Bool) throws(StrataError) -> Bool {
        guard let value = optional(name) else { return fallback }
        guard case .bool(let bool) = value else {
            throw fail("has \"\(name)\" as \(value.kindDescription); it must be true or false")
        }
        return bool
    }

    /// The array member `name`, or empty when it is missing.
    func array(_ name: String) throws(StrataError) -> [JSONValue] {
        guard let value = optional(name) else { return [] }
        guard case .array(let items) = value else {
            throw fail("has \"\(name)\" as \(value.kindDescription); it must be an array")
        }
        return items
    }

    /// The member `name` read as one of the raw values of `T`, or `fallback` when missing.
    func enumeration<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T?) throws(StrataError) -> T
    where T.RawValue == String {
        let choices = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard let value = optional(name) else {
            if let fallback { return fallback }
            throw fail("is missing the key \"\(name)\" (one of \(choices))")
        }
        guard case .string(let raw) = value, let result = T(rawValue: raw) else {
            let shown: String
            if case .string(let raw) = value { shown = "\"\(raw)\"" } else { shown = value.kindDescription }
            throw fail("has \"\(name)\": \(shown), which is not one of \(choices)")
        }
        return result
    }

    /// An `.invalidSchema` error about this object.
    func fail(_ message: String) -> StrataError {
        StrataError(.invalidSchema, "schema JSON: \(place) \(message)", entity: entity, key: key)
    }
}
