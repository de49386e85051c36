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

    /// ``value(parsing:for:)`` of UTF-8 text, for the common forms of a property of `type`
    /// (`nil`: a to-one key), without making a `String` of a number: what a CSV import calls
    /// for every field. `nil` when the text needs the whole parse — another form, or text
    /// that does not parse: call ``value(parsing:for:)``, which decides and names the property
    /// in its error.
    ///
    /// For example: `RowText.value(parsingUTF8: bytes, type: .int64)` is `.int(42)` for the
    /// bytes of `42`.
    public static func value(parsingUTF8 bytes: UnsafeBufferPointer<UInt8>, type: AttributeType?) -> AttributeValue? {
        switch type {
        case nil, .int16?, .int32?, .int64?:
            guard let number = wholeNumber(bytes), type?.integerRange?.contains(number) ?? true else { return nil }
            return .int(number)
        case .double?:
            return decimalNumber(bytes).map { .double($0) }
        case .string?:
            return .string(String(decoding: bytes, as: UTF8.self))
        default:
            return nil
        }
    }

    /// `Int64(text)` for an optional sign and 1 to 18 ASCII digits (which cannot overflow);
    /// `nil` for anything else, which the `String` path decides.
    private static func wholeNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = bytes.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        let digits = negative || first == UInt8(ascii: "+") ? UnsafeBufferPointer(rebasing: bytes.dropFirst()) : bytes
        guard (1...18).contains(digits.count) else { return nil }
        var value: Int64 = 0
        for byte in digits {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
        }
        return negative ? -value : value
    }

    /// `Double(text)` for plain decimal text — an optional sign, digits with at most one
    /// point and at least one digit, an optional exponent, at most 40 bytes — through C's
    /// `strtod` (correctly rounded, as Swift's parse is); `nil` for anything else (hex,
    /// `inf`, `nan`, spaces, longer text), which the `String` path decides.
    private static func decimalNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard (1...40).contains(bytes.count) else { return nil }
        var index = 0
        func skipDigits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - start
        }
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") { index = 1 }
        var digits = skipDigits()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            digits += skipDigits()
        }
        guard digits > 0 else { return nil }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            guard skipDigits() > 0 else { return nil }
        }
        guard index == bytes.count else { return nil }
        // NUL-terminated for strtod; the pattern above has no locale-dependent character.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text in
            for (offset, byte) in bytes.enumerated() { text[offset] = CChar(bitPattern: byte) }
            text[bytes.count] = 0
            return strtod(text.baseAddress!, nil)
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
