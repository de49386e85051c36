extension Schema {
    /// The JSON tree of the schema; `format` is included when `includeFormat` is set.
    func json(includeFormat: Bool) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if includeFormat { members.append(("format", .int(Self.jsonFormat))) }
        members.append(("entities", .array(entities.map(\.json))))
        return .object(members)
    }
}

extension Entity {
    /// `{"name", "attributes", "relationships"}`, both arrays always present, then
    /// `indexes` and `uniquenessConstraints` only when there are some (so a schema without
    /// them keeps its bytes).
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("name", .string(name)),
            ("attributes", .array(attributes.map(\.json))),
            ("relationships", .array(relationships.map(\.json))),
        ]
        if !indexes.isEmpty {
            members.append(("indexes", .array(indexes.map { .array($0.map { .string($0) }) })))
        }
        if !uniquenessConstraints.isEmpty {
            members.append(("uniquenessConstraints", .array(uniquenessConstraints.map { .array($0.map { .string($0) }) })))
        }
        if let originalName { members.append(("originalName", .string(originalName))) }
        return .object(members)
    }
}

extension Attribute {
    /// `{"name", "type"}`, then `optional`, `default` and `validation` only when they differ
    /// from their defaults (false, none, no data rules). Custom rules are left out.
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("name", .string(name)), ("type", .string(type.rawValue))]
        if isOptional { members.append(("optional", .bool(true))) }
        if !defaultValue.isNull { members.append(("default", defaultValue.jsonValue)) }
        let rules = validationRules.compactMap(\.json)
        if !rules.isEmpty { members.append(("validation", .array(rules))) }
        if let originalName { members.append(("originalName", .string(originalName))) }
        return .object(members)
    }
}

extension Relationship {
    /// `{"name", "destination", "inverse"}`, then `toMany`, `optional` and `deleteRule` only
    /// when they differ from their defaults (false, true, nullify), and `originalName` when set.
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("name", .string(name)), ("destination", .string(destination)), ("inverse", .string(inverse)),
        ]
        if isToMany { members.append(("toMany", .bool(true))) }
        if !isOptional { members.append(("optional", .bool(false))) }
        if deleteRule != .nullify { members.append(("deleteRule", .string(deleteRule.rawValue))) }
        if let originalName { members.append(("originalName", .string(originalName))) }
        return .object(members)
    }
}

extension ValidationRule {
    /// `{"range": {"min", "max"}}`, `{"length": {"min", "max"}}` or `{"pattern": "…"}` (open
    /// bounds left out); `nil` for a custom rule, which is code.
    var json: JSONValue? {
        func bounds(_ min: JSONValue?, _ max: JSONValue?) -> JSONValue {
            var members: [(key: String, value: JSONValue)] = []
            if let min { members.append(("min", min)) }
            if let max { members.append(("max", max)) }
            return .object(members)
        }
        switch self {
        case .range(let min, let max):
            return .object([("range", bounds(min?.jsonValue, max?.jsonValue))])
        case .length(let min, let max):
            return .object([("length", bounds(min.map { .int(Int64($0)) }, max.map { .int(Int64($0)) }))])
        case .pattern(let pattern):
            return .object([("pattern", .string(pattern))])
        case .custom:
            return nil
        }
    }
}
