public import Foundation

/// The JSON form of a schema, for tools that create and read stores without application code.
///
/// The simplest file:
/// ```json
/// {"entities": [{"name": "Person",
///                "attributes": [{"name": "age", "type": "int64"},
///                               {"name": "nickname", "type": "string", "optional": true}],
///                "relationships": []}]}
/// ```
///
/// Keys and their defaults:
/// - top level: `entities` (required), `format` (optional, `1`);
/// - entity: `name` (required), `attributes` and `relationships` (arrays, default empty),
///   `indexes` (an array of arrays of property names, such as `[["email"], ["lastName",
///   "firstName"]]`; default empty);
/// - attribute: `name`, `type` (`bool`, `int16`, `int32`, `int64`, `double`, `string`,
///   `date`, `uuid`, `binary`), `optional` (false), `default` (none; dates as ISO 8601
///   strings or seconds since 1970, UUIDs as strings, binary as base64), `validation` (an
///   array of `{"range": {"min": 0, "max": 10}}`, `{"length": {"min": 1, "max": 200}}`,
///   `{"pattern": "[a-z]+"}`; either bound may be left out);
/// - relationship: `name`, `destination`, `inverse` (all required), `toMany` (false),
///   `optional` (true), `deleteRule` (`nullify`, `cascade`, `deny`, `noAction`; `nullify`).
///
/// Dates are written as ISO 8601 strings (`"2024-05-01T12:00:00Z"`) when they fall on a whole
/// second in the years 1583 to 9999, and otherwise as seconds since 1970 (a JSON number).
/// Caveat: `Date` counts from 2001, so a fractional date whose seconds since 1970 cannot be
/// represented exactly may read back one rounding step (well under a microsecond) away.
///
/// Unknown keys are errors, so typos do not pass silently. Output is deterministic: keys in
/// the order above, members equal to their defaults left out, custom validation rules left
/// out, numbers in their shortest exact form; the same schema always gives the same bytes.
extension Schema {
    /// Reads and validates a schema from JSON.
    ///
    /// For example:
    /// ```swift
    /// let schema = try Schema(jsonData: Data(contentsOf: url))
    /// ```
    ///
    /// - Throws: `StrataError` `.invalidSchema` naming the entity and property and what is
    ///   wrong: malformed JSON, a missing or unknown key, an unknown type, a bad default, or a
    ///   consistency problem (see ``validate()``).
    public init(jsonData: Data) throws(StrataError) {
        let tree: JSONValue
        do {
            tree = try JSONDecoder().decode(JSONValue.self, from: jsonData)
        } catch {
            throw StrataError(.invalidSchema, "schema JSON is not valid JSON: \(Self.syntaxProblem(error)); fix the file's syntax")
        }
        self = try Schema(json: tree).validated()
    }

    /// Reads and validates a schema from a JSON string.
    ///
    /// - Throws: `StrataError` `.invalidSchema`; see ``init(jsonData:)``.
    public init(jsonString: String) throws(StrataError) {
        try self.init(jsonData: Data(jsonString.utf8))
    }

    /// The schema as JSON text: pretty (two-space indent, one member per line) by default,
    /// or compact. Custom validation rules are left out.
    ///
    /// - Complexity: O(size of the schema).
    public func jsonString(prettyPrinted: Bool = true) -> String {
        json(includeFormat: false).serialized(pretty: prettyPrinted)
    }

    /// The schema as UTF-8 JSON; see ``jsonString(prettyPrinted:)``.
    public func jsonData(prettyPrinted: Bool = true) -> Data {
        Data(jsonString(prettyPrinted: prettyPrinted).utf8)
    }

    /// The gist of a JSON syntax error, without the decoder's internal coding path.
    private static func syntaxProblem(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError {
                return (underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                    ?? context.debugDescription
            }
            return context.debugDescription
        }
        return "\(error)"
    }
}
