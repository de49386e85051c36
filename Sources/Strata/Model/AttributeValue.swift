public import Foundation

/// A single attribute value: what a managed object holds for a key, what a predicate
/// compares, and what a batch request writes.
///
/// `AttributeValue` is a closed set of cases matching ``AttributeType``, plus `.null` for a
/// missing value of an optional attribute. Integers of every width are carried as `Int64`.
///
/// For example:
/// ```swift
/// let age: AttributeValue = 42
/// let name: AttributeValue = "Ada"
/// ```
public enum AttributeValue: Sendable, Hashable {
    /// No value (an optional attribute that is not set, or `NIL` in a predicate).
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer of any width.
    case int(Int64)
    /// A floating-point number.
    case double(Double)
    /// A string.
    case string(String)
    /// A date.
    case date(Date)
    /// A UUID.
    case uuid(UUID)
    /// Raw bytes.
    case binary(Data)

    /// Whether this is `.null`.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// A short name of the value's kind, for error messages (never the value itself).
    public var kindName: String {
        switch self {
        case .null: return "nil"
        case .bool: return "bool"
        case .int: return "integer"
        case .double: return "double"
        case .string: return "string"
        case .date: return "date"
        case .uuid: return "uuid"
        case .binary: return "binary"
        }
    }

    /// Whether this value can be stored in an attribute of `type` (`.null` always can; the
    /// attribute's optionality is checked separately). Integers must fit the attribute's width.
    public func conforms(to type: AttributeType) -> Bool {
        switch (self, type) {
        case (.null, _): return true
        case (.bool, .bool), (.double, .double), (.string, .string), (.date, .date),
             (.uuid, .uuid), (.binary, .binary):
            return true
        case (.int(let v), _):
            guard let range = type.integerRange else { return false }
            return range.contains(v)
        default:
            return false
        }
    }
}

extension AttributeValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    /// Creates `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// Creates `.bool(value)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates `.int(value)`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// Creates `.double(value)`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates `.string(value)`.
    public init(stringLiteral value: String) { self = .string(value) }
}
