import Foundation

/// Reading and writing attribute values as text, for tools: CSV fields, `key=value`
/// assignments, table cells and JSON Lines.
///
/// Text forms: booleans `true`/`false` (also `yes`/`no`, `1`/`0` on input), integers and
/// doubles in decimal, strings as they are, dates as ISO 8601 (`2024-05-01T12:00:00Z`) when
/// they fall on a whole second and otherwise as seconds since 1970, UUIDs in their usual
/// form, binary data as base64. JSON uses the same forms (numbers and booleans unquoted),
/// so exporting and importing gives back the same values.
public enum RowText {
    /// Parses `text` as a value of a stored property.
    ///
    /// For example: `try RowText.value(parsing: "42", for: StoredProperty(name: "age", type: .int16, isOptional: false))`
    /// is `.int(42)`.
    ///
    /// - Throws: `StrataError` `.typeMismatch` saying what the property needs (never
    ///   quoting the text).
    public static func value(parsing text: String, for property: StoredProperty) throws(StrataError) -> AttributeValue {
        guard let type = property.type else {
            guard let key = Int64(text) else { throw mismatch(property, "the primary key of a \(property.destination ?? "destination") row, a whole number") }
            return .int(key)
        }
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw mismatch(property, "true or false")
            }
        case .int16, .int32, .int64:
            guard let value = Int64(text), type.integerRange?.contains(value) == true else {
                throw mismatch(property, "a whole number that fits \(type.rawValue)")
            }
            return .int(value)
        case .double:
            guard let value = Double(text) else { throw mismatch(property, "a number") }
            return .double(value)
        case .string:
            return .string(text)
        case .date:
            return try value(json: Double(text).map { .double($0) } ?? .string(text), for: property)
        case .uuid, .binary:
            return try value(json: .string(text), for: property)
        }
    }

    /// The text of `value`: `nil` becomes `nilText`.
    public static func text(of value: AttributeValue, nilText: String = "nil") -> String {
        switch value.jsonValue {
        case .null: return nilText
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .string(let s): return s
        case let other: return other.serialized(pretty: false)
        }
    }

    /// A JSON object with `members` in the given order, on one line.
    public static func jsonObject(_ members: [(key: String, value: AttributeValue)]) -> String {
        JSONValue.object(members.map { ($0.key, $0.value.jsonValue) }).serialized(pretty: false)
    }

    /// Decodes one JSON object (a line of a JSON Lines file) into the values of a batch
    /// insert row, typed by `properties`. A missing key is left out (the insert gives it the
    /// default or nil); `null` is nil.
    ///
    /// - Throws: `StrataError` `.typeMismatch` (not JSON, not an object, a value of the
    ///   wrong type) or `.unknownKey` naming the nearest key.
    public static func row(jsonLine line: String, properties: [StoredProperty]) throws(StrataError) -> [String: AttributeValue] {
        let tree: JSONValue
        do { tree = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) }
        catch { throw StrataError(.typeMismatch, "the line is not valid JSON") }
        guard case .object(let members) = tree else {
            throw StrataError(.typeMismatch, "the line is \(tree.kindDescription), not a JSON object")
        }
        var row: [String: AttributeValue] = [:]
        for (key, json) in members {
            row[key] = try value(json: json, for: property(named: key, in: properties))
        }
        return row
    }

    /// The property called `key`, or `.unknownKey` naming the nearest one.
    ///
    /// - Throws: `StrataError` `.unknownKey`.
    public static func property(named key: String, in properties: [StoredProperty]) throws(StrataError) -> StoredProperty {
        if let found = properties.first(where: { $0.name == key }) { return found }
        let names = properties.map(\.name)
        let suggestion = Schema.nearestName(to: key, among: names)
        throw StrataError(.unknownKey, "unknown key '\(key)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "") + " (keys: \(names.joined(separator: ", ")))", key: key)
    }

    private static func value(json: JSONValue, for property: StoredProperty) throws(StrataError) -> AttributeValue {
        guard let type = property.type else {
            switch json {
            case .null: return .null
            case .int(let key): return .int(key)
            default: throw mismatch(property, "the primary key of a \(property.destination ?? "destination") row, a whole number")
            }
        }
        switch AttributeValue.fromJSON(json, as: type) {
        case .success(let value):
            guard value.conforms(to: type) else { throw mismatch(property, "a whole number that fits \(type.rawValue)") }
            return value
        case .failure(.expected(let what)):
            throw mismatch(property, what)
        }
    }

    private static func mismatch(_ property: StoredProperty, _ expected: String) -> StrataError {
        StrataError(.typeMismatch, "\(property.name) needs \(expected)", key: property.name)
    }
}
