extension Schema {
    /// The keys of the top-level object.
    static let jsonKeys = ["format", "entities"]
    /// The newest schema JSON format this code reads and writes.
    static let jsonFormat: Int64 = 1

    /// Reads a schema from its JSON tree, without the consistency check.
    init(json: JSONValue) throws(StrataError) {
        let reader = try JSONObjectReader(json, place: "the top-level object", allowedKeys: Self.jsonKeys)
        if let format = reader.optional("format") {
            guard case .int(let number) = format, (1...Self.jsonFormat).contains(number) else {
                throw reader.fail("has a \"format\" this version cannot read; expected 1 to \(Self.jsonFormat)")
            }
        }
        guard reader.optional("entities") != nil else { throw reader.fail("is missing the key \"entities\"") }
        var entities: [Entity] = []
        for (index, item) in try reader.array("entities").enumerated() {
            entities.append(try Entity(json: item, index: index))
        }
        self.init(entities: entities)
    }
}

extension Entity {
    /// The keys of an entity object.
    static let jsonKeys = ["name", "attributes", "relationships", "indexes", "uniquenessConstraints", "originalName"]

    /// Reads the entity at `index` of the `entities` array.
    init(json: JSONValue, index: Int) throws(StrataError) {
        let unnamed = try JSONObjectReader(json, place: "entity #\(index + 1)", allowedKeys: nil)
        let name = try unnamed.requiredString("name")
        let reader = try JSONObjectReader(json, place: "entity '\(name)'", allowedKeys: Self.jsonKeys, entity: name)
        var attributes: [Attribute] = []
        for (position, item) in try reader.array("attributes").enumerated() {
            attributes.append(try Attribute(json: item, entity: name, index: position))
        }
        var relationships: [Relationship] = []
        for (position, item) in try reader.array("relationships").enumerated() {
            relationships.append(try Relationship(json: item, entity: name, index: position))
        }
        let indexes = try Self.propertyLists("indexes", noun: "index", in: reader)
        let constraints = try Self.propertyLists("uniquenessConstraints", noun: "uniqueness constraint", in: reader)
        self.init(name: name, attributes: attributes, relationships: relationships, indexes: indexes,
                  uniquenessConstraints: constraints)
        if reader.optional("originalName") != nil { originalName = try reader.requiredString("originalName") }
    }
}

extension Entity {
    /// The member `key`: an array of arrays of property names (`indexes`,
    /// `uniquenessConstraints`); `noun` names one list in messages.
    static func propertyLists(_ key: String, noun: String, in reader: JSONObjectReader) throws(StrataError) -> [[String]] {
        var lists: [[String]] = []
        for (position, item) in try reader.array(key).enumerated() {
            guard case .array(let members) = item else {
                throw reader.fail("has \(noun) #\(position + 1) as \(item.kindDescription); it must be an array of property names")
            }
            var names: [String] = []
            for member in members {
                guard case .string(let property) = member else {
                    throw reader.fail("has \(noun) #\(position + 1) with \(member.kindDescription) in it; list property names as strings")
                }
                names.append(property)
            }
            lists.append(names)
        }
        return lists
    }
}

extension Attribute {
    /// The keys of an attribute object.
    static let jsonKeys = ["name", "type", "optional", "default", "validation", "originalName"]

    /// Reads attribute number `index` of entity `entity`.
    init(json: JSONValue, entity: String, index: Int) throws(StrataError) {
        let unnamed = try JSONObjectReader(json, place: "attribute #\(index + 1) of entity '\(entity)'",
                                           allowedKeys: nil, entity: entity)
        let name = try unnamed.requiredString("name")
        let reader = try JSONObjectReader(json, place: "attribute '\(entity).\(name)'",
                                          allowedKeys: Self.jsonKeys, entity: entity, key: name)
        let type: AttributeType = try reader.enumeration("type", default: nil)
        let isOptional = try reader.bool("optional", default: false)
        var defaultValue = AttributeValue.null
        if let json = reader.optional("default") {
            switch AttributeValue.fromJSON(json, as: type) {
            case .success(let value): defaultValue = value
            case .failure(.expected(let what)):
                throw reader.fail("has a \"default\" that is \(json.kindDescription) or malformed; a \(type.rawValue) default must be \(what)")
            }
        }
        var rules: [ValidationRule] = []
        for (position, item) in try reader.array("validation").enumerated() {
            rules.append(try ValidationRule(json: item, type: type, reader: reader, index: position))
        }
        self.init(name: name, type: type, isOptional: isOptional, defaultValue: defaultValue,
                  validationRules: rules)
        if reader.optional("originalName") != nil { originalName = try reader.requiredString("originalName") }
    }
}

extension Relationship {
    /// The keys of a relationship object.
    static let jsonKeys = ["name", "destination", "inverse", "toMany", "optional", "deleteRule", "originalName"]

    /// Reads relationship number `index` of entity `entity`.
    init(json: JSONValue, entity: String, index: Int) throws(StrataError) {
        let unnamed = try JSONObjectReader(json, place: "relationship #\(index + 1) of entity '\(entity)'",
                                           allowedKeys: nil, entity: entity)
        let name = try unnamed.requiredString("name")
        let reader = try JSONObjectReader(json, place: "relationship '\(entity).\(name)'",
                                          allowedKeys: Self.jsonKeys, entity: entity, key: name)
        self.init(
            name: name,
            destination: try reader.requiredString("destination"),
            inverse: try reader.requiredString("inverse"),
            isToMany: try reader.bool("toMany", default: false),
            isOptional: try reader.bool("optional", default: true),
            deleteRule: try reader.enumeration("deleteRule", default: DeleteRule.nullify))
        if reader.optional("originalName") != nil { originalName = try reader.requiredString("originalName") }
    }
}

extension ValidationRule {
    /// The keys of a rule object; exactly one must be present.
    static let jsonKeys = ["range", "length", "pattern"]
    /// The keys of a range or length object.
    static let boundKeys = ["min", "max"]

    /// Reads rule number `index` of an attribute of `type` (`nil` when the rule is read on its
    /// own: numbers keep their JSON kind and strings are dates).
    init(json: JSONValue, type: AttributeType?, reader parent: JSONObjectReader, index: Int) throws(StrataError) {
        let place = "\(parent.place), validation rule #\(index + 1),"
        let reader = try JSONObjectReader(json, place: place, allowedKeys: Self.jsonKeys,
                                          entity: parent.entity, key: parent.key)
        let present = Self.jsonKeys.filter { reader.optional($0) != nil }
        guard present.count == 1, let kind = present.first, let body = reader.optional(kind) else {
            throw reader.fail("must have exactly one of the keys \"range\", \"length\" or \"pattern\"")
        }
        switch kind {
        case "pattern":
            guard case .string(let pattern) = body else {
                throw reader.fail("has \"pattern\" as \(body.kindDescription); it must be a string")
            }
            self = .pattern(pattern)
        case "length":
            let bounds = try JSONObjectReader(body, place: "\(place) \"length\"", allowedKeys: Self.boundKeys,
                                              entity: parent.entity, key: parent.key)
            self = .length(min: try Self.count(bounds, "min"), max: try Self.count(bounds, "max"))
        default:
            let bounds = try JSONObjectReader(body, place: "\(place) \"range\"", allowedKeys: Self.boundKeys,
                                              entity: parent.entity, key: parent.key)
            self = .range(min: try Self.bound(bounds, "min", type: type),
                          max: try Self.bound(bounds, "max", type: type))
        }
    }

    /// A length bound: a whole number or absent.
    private static func count(_ reader: JSONObjectReader, _ name: String) throws(StrataError) -> Int? {
        guard let value = reader.optional(name) else { return nil }
        guard case .int(let number) = value, let count = Int(exactly: number) else {
            throw reader.fail("has \"\(name)\" as \(value.kindDescription); it must be a whole number")
        }
        return count
    }

    /// A range bound read for an attribute of `type`, or by its JSON kind when `type` is nil
    /// or has no ranges (the consistency check then reports the misplaced rule).
    private static func bound(_ reader: JSONObjectReader, _ name: String,
                              type: AttributeType?) throws(StrataError) -> AttributeValue? {
        guard let json = reader.optional(name) else { return nil }
        let inferred: AttributeType
        if let type, type.isNumeric || type == .date {
            inferred = type
        } else {
            switch json {
            case .int: inferred = .int64
            case .double: inferred = .double
            default: inferred = .date
            }
        }
        switch AttributeValue.fromJSON(json, as: inferred) {
        case .success(let value): return value
        case .failure(.expected(let what)):
            throw reader.fail("has \"\(name)\" as \(json.kindDescription) or malformed; for a \(inferred.rawValue) attribute it must be \(what)")
        }
    }
}
