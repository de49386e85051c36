public import Foundation

/// A Swift type that a model property stores as one attribute value: `Bool`, the integer
/// types, `Double`, `Float`, `String`, `Date`, `UUID`, `Data`, `URL`, `Decimal`, and
/// optionals of these. (Enums with `String` or `Int` raw values and `Codable` structs are
/// stored too, through their raw values and their JSON encoding; see ``ModelValueKind``.)
public protocol PersistentAttributeValue: SendableMetatype {
    /// The attribute type the value is stored as.
    static var persistentAttributeType: AttributeType { get }
    /// Whether the attribute may be `nil` (only optionals).
    static var persistentIsOptional: Bool { get }
    /// What a read of a missing value gives (zero, empty, `nil`).
    static var persistentPlaceholder: Self { get }
    /// The value as stored.
    var persistentValue: AttributeValue { get }
    /// The value from what is stored, or `nil` when `value` is of another kind.
    init?(persistentValue value: AttributeValue)
}

extension PersistentAttributeValue {
    /// Not optional.
    public static var persistentIsOptional: Bool { false }
}

extension Bool: PersistentAttributeValue {
    /// `.bool`.
    public static var persistentAttributeType: AttributeType { .bool }
    /// `false`.
    public static var persistentPlaceholder: Bool { false }
    /// `.bool(self)`.
    public var persistentValue: AttributeValue { .bool(self) }
    /// From `.bool`.
    public init?(persistentValue value: AttributeValue) {
        guard case .bool(let v) = value else { return nil }
        self = v
    }
}

/// The fixed-width integers share one implementation: stored as their width's attribute.
public protocol PersistentInteger: PersistentAttributeValue, FixedWidthInteger {}

extension PersistentInteger {
    /// Zero.
    public static var persistentPlaceholder: Self { 0 }
    /// `.int(Int64(self))`.
    public var persistentValue: AttributeValue { .int(Int64(self)) }
    /// From `.int`, when it fits.
    public init?(persistentValue value: AttributeValue) {
        guard case .int(let v) = value, let exact = Self(exactly: v) else { return nil }
        self = exact
    }
}

extension Int: PersistentInteger {
    /// `.int64`.
    public static var persistentAttributeType: AttributeType { .int64 }
}
extension Int64: PersistentInteger {
    /// `.int64`.
    public static var persistentAttributeType: AttributeType { .int64 }
}
extension Int32: PersistentInteger {
    /// `.int32`.
    public static var persistentAttributeType: AttributeType { .int32 }
}
extension Int16: PersistentInteger {
    /// `.int16`.
    public static var persistentAttributeType: AttributeType { .int16 }
}

extension Double: PersistentAttributeValue {
    /// `.double`.
    public static var persistentAttributeType: AttributeType { .double }
    /// Zero.
    public static var persistentPlaceholder: Double { 0 }
    /// `.double(self)`.
    public var persistentValue: AttributeValue { .double(self) }
    /// From `.double`.
    public init?(persistentValue value: AttributeValue) {
        guard case .double(let v) = value else { return nil }
        self = v
    }
}

extension Float: PersistentAttributeValue {
    /// `.double` (a `Float` widens exactly).
    public static var persistentAttributeType: AttributeType { .double }
    /// Zero.
    public static var persistentPlaceholder: Float { 0 }
    /// `.double(Double(self))`.
    public var persistentValue: AttributeValue { .double(Double(self)) }
    /// From `.double`, rounded to the nearest `Float`.
    public init?(persistentValue value: AttributeValue) {
        guard case .double(let v) = value else { return nil }
        self = Float(v)
    }
}

extension String: PersistentAttributeValue {
    /// `.string`.
    public static var persistentAttributeType: AttributeType { .string }
    /// The empty string.
    public static var persistentPlaceholder: String { "" }
    /// `.string(self)`.
    public var persistentValue: AttributeValue { .string(self) }
    /// From `.string`.
    public init?(persistentValue value: AttributeValue) {
        guard case .string(let v) = value else { return nil }
        self = v
    }
}

extension Date: PersistentAttributeValue {
    /// `.date`.
    public static var persistentAttributeType: AttributeType { .date }
    /// The reference date (2001-01-01).
    public static var persistentPlaceholder: Date { Date(timeIntervalSinceReferenceDate: 0) }
    /// `.date(self)`.
    public var persistentValue: AttributeValue { .date(self) }
    /// From `.date`.
    public init?(persistentValue value: AttributeValue) {
        guard case .date(let v) = value else { return nil }
        self = v
    }
}

extension UUID: PersistentAttributeValue {
    /// `.uuid`.
    public static var persistentAttributeType: AttributeType { .uuid }
    /// The all-zero UUID.
    public static var persistentPlaceholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    /// `.uuid(self)`.
    public var persistentValue: AttributeValue { .uuid(self) }
    /// From `.uuid`.
    public init?(persistentValue value: AttributeValue) {
        guard case .uuid(let v) = value else { return nil }
        self = v
    }
}

extension Data: PersistentAttributeValue {
    /// `.binary`.
    public static var persistentAttributeType: AttributeType { .binary }
    /// Empty data.
    public static var persistentPlaceholder: Data { Data() }
    /// `.binary(self)`.
    public var persistentValue: AttributeValue { .binary(self) }
    /// From `.binary`.
    public init?(persistentValue value: AttributeValue) {
        guard case .binary(let v) = value else { return nil }
        self = v
    }
}

extension URL: PersistentAttributeValue {
    /// `.string`: the URL's absolute string.
    public static var persistentAttributeType: AttributeType { .string }
    /// `file:///`.
    public static var persistentPlaceholder: URL { URL(fileURLWithPath: "/") }
    /// `.string(absoluteString)`.
    public var persistentValue: AttributeValue { .string(absoluteString) }
    /// From a `.string` that parses as a URL.
    public init?(persistentValue value: AttributeValue) {
        guard case .string(let v) = value, let url = URL(string: v) else { return nil }
        self = url
    }
}

extension Decimal: PersistentAttributeValue {
    /// `.string`: the exact decimal digits (a `double` would round). Equality works in
    /// predicates; ordering and sorting by a `Decimal` are refused (text order is not
    /// numeric order).
    public static var persistentAttributeType: AttributeType { .string }
    /// Zero.
    public static var persistentPlaceholder: Decimal { 0 }
    /// `.string(description)`.
    public var persistentValue: AttributeValue { .string(description) }
    /// From a `.string` of decimal digits.
    public init?(persistentValue value: AttributeValue) {
        guard case .string(let v) = value, let decimal = Decimal(string: v) else { return nil }
        self = decimal
    }
}

extension Optional: PersistentAttributeValue where Wrapped: PersistentAttributeValue {
    /// The wrapped type's.
    public static var persistentAttributeType: AttributeType { Wrapped.persistentAttributeType }
    /// Optional.
    public static var persistentIsOptional: Bool { true }
    /// `nil`.
    public static var persistentPlaceholder: Wrapped? { nil }
    /// `.null` for `nil`.
    public var persistentValue: AttributeValue { self?.persistentValue ?? .null }
    /// `nil` from `.null`.
    public init?(persistentValue value: AttributeValue) {
        if value.isNull { self = .none; return }
        guard let wrapped = Wrapped(persistentValue: value) else { return nil }
        self = .some(wrapped)
    }
}
