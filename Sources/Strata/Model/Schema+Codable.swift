/// `Codable` in the schema's JSON form (see ``Schema/init(jsonData:)``), so a schema can sit
/// inside other `Codable` values. Decoding a ``Schema`` also validates it; problems are
/// thrown as `StrataError` `.invalidSchema`, not `DecodingError`.
extension Schema: Codable {
    /// Decodes and validates a schema.
    ///
    /// - Throws: `StrataError` `.invalidSchema`, or the decoder's own error for input that
    ///   is not JSON-like.
    public init(from decoder: any Decoder) throws {
        self = try Schema(json: JSONValue(from: decoder)).validated()
    }

    /// Encodes the schema's JSON form (custom rules left out).
    public func encode(to encoder: any Encoder) throws {
        try json(includeFormat: false).encode(to: encoder)
    }
}

extension Entity: Codable {
    /// Decodes one entity object (not checked for consistency; a ``Schema`` does that).
    ///
    /// - Throws: `StrataError` `.invalidSchema`.
    public init(from decoder: any Decoder) throws {
        self = try Entity(json: JSONValue(from: decoder), index: 0)
    }

    /// Encodes the entity's JSON form.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

extension Attribute: Codable {
    /// Decodes one attribute object.
    ///
    /// - Throws: `StrataError` `.invalidSchema`.
    public init(from decoder: any Decoder) throws {
        self = try Attribute(json: JSONValue(from: decoder), entity: "?", index: 0)
    }

    /// Encodes the attribute's JSON form (custom rules left out).
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

extension Relationship: Codable {
    /// Decodes one relationship object.
    ///
    /// - Throws: `StrataError` `.invalidSchema`.
    public init(from decoder: any Decoder) throws {
        self = try Relationship(json: JSONValue(from: decoder), entity: "?", index: 0)
    }

    /// Encodes the relationship's JSON form.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

extension ValidationRule: Codable {
    /// Decodes `{"range": …}`, `{"length": …}` or `{"pattern": …}`. Range bounds keep their
    /// JSON kind (whole numbers are integers, other numbers doubles, strings ISO 8601 dates);
    /// inside an attribute they follow the attribute's type instead.
    ///
    /// - Throws: `StrataError` `.invalidSchema`.
    public init(from decoder: any Decoder) throws {
        let place = try JSONObjectReader(.object([]), place: "the decoded value", allowedKeys: [])
        self = try ValidationRule(json: JSONValue(from: decoder), type: nil, reader: place, index: 0)
    }

    /// Encodes a data rule.
    ///
    /// - Throws: `EncodingError.invalidValue` for a custom rule, which is code.
    public func encode(to encoder: any Encoder) throws {
        guard let json else {
            throw EncodingError.invalidValue(self, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "the \(self) validation rule is a closure and cannot be encoded"))
        }
        try json.encode(to: encoder)
    }
}
