/// The type of an entity attribute, as stored and as type-checked by requests.
///
/// Integer widths are checked on write (a value outside `Int16`'s range is an error for an
/// `.int16` attribute) but every integer is carried as an `Int64` in ``AttributeValue``.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    /// `true` or `false`.
    case bool
    /// A 16-bit signed integer.
    case int16
    /// A 32-bit signed integer.
    case int32
    /// A 64-bit signed integer.
    case int64
    /// A 64-bit IEEE 754 floating-point number.
    case double
    /// A Unicode string.
    case string
    /// A point in time (`Foundation.Date`).
    case date
    /// A `Foundation.UUID`.
    case uuid
    /// Raw bytes (`Foundation.Data`).
    case binary

    /// Whether values of this type are integers (`int16`, `int32` or `int64`).
    public var isInteger: Bool {
        switch self {
        case .int16, .int32, .int64: return true
        default: return false
        }
    }

    /// Whether values of this type are numbers (integers or `double`).
    public var isNumeric: Bool { isInteger || self == .double }

    /// The inclusive range an integer attribute of this type accepts, or `nil` for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        case .int64: return Int64.min...Int64.max
        default: return nil
        }
    }
}
