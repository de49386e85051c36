public import Foundation

/// A value substituted for `%@`, `%K`, `%d`, `%i`, `%f` or a `$variable` in a predicate
/// format string, so user values never have to be spliced into the string.
///
/// You rarely write this type: every ``PredicateArgumentConvertible`` value (integers,
/// doubles, strings, booleans, dates, UUIDs, data, optionals and arrays of them) converts.
///
/// For example:
/// ```swift
/// try ObjectPredicate(format: "%K == %@", PredicateArgument.keyPath("name"), "Ada")
/// try ObjectPredicate(format: "id IN %@", [uuidA, uuidB])
/// ```
public enum PredicateArgument: Sendable, Hashable {
    /// One value (`.null` for nil).
    case value(AttributeValue)
    /// A list of values, for `IN %@` and `BETWEEN %@` (two elements).
    case list([AttributeValue])
    /// A key path such as `"team.name"`, for `%K` (a plain string argument works too).
    case keyPath(String)
}

/// A Swift value that can be passed as a predicate argument.
public protocol PredicateArgumentConvertible: Sendable {
    /// The value as a predicate argument.
    var predicateArgument: PredicateArgument { get }
}

/// A Swift value that converts to a single ``AttributeValue``; usable as an argument, in a
/// list argument, and as an operand of the Swift predicate builder.
public protocol PredicateValueConvertible: PredicateArgumentConvertible {
    /// The value as an attribute value.
    var predicateValue: AttributeValue { get }
}

extension PredicateValueConvertible {
    /// `.value(predicateValue)`.
    public var predicateArgument: PredicateArgument { .value(predicateValue) }
}

extension PredicateArgument: PredicateArgumentConvertible {
    /// The argument itself.
    public var predicateArgument: PredicateArgument { self }
}

extension AttributeValue: PredicateValueConvertible {
    /// The value itself.
    public var predicateValue: AttributeValue { self }
}

extension Bool: PredicateValueConvertible {
    /// `.bool(self)`.
    public var predicateValue: AttributeValue { .bool(self) }
}

extension Int: PredicateValueConvertible {
    /// `.int(self)`.
    public var predicateValue: AttributeValue { .int(Int64(self)) }
}

extension Int16: PredicateValueConvertible {
    /// `.int(self)`.
    public var predicateValue: AttributeValue { .int(Int64(self)) }
}

extension Int32: PredicateValueConvertible {
    /// `.int(self)`.
    public var predicateValue: AttributeValue { .int(Int64(self)) }
}

extension Int64: PredicateValueConvertible {
    /// `.int(self)`.
    public var predicateValue: AttributeValue { .int(self) }
}

extension Double: PredicateValueConvertible {
    /// `.double(self)`.
    public var predicateValue: AttributeValue { .double(self) }
}

extension String: PredicateValueConvertible {
    /// `.string(self)`.
    public var predicateValue: AttributeValue { .string(self) }
}

extension Substring: PredicateValueConvertible {
    /// `.string(String(self))`.
    public var predicateValue: AttributeValue { .string(String(self)) }
}

extension Date: PredicateValueConvertible {
    /// `.date(self)`.
    public var predicateValue: AttributeValue { .date(self) }
}

extension UUID: PredicateValueConvertible {
    /// `.uuid(self)`.
    public var predicateValue: AttributeValue { .uuid(self) }
}

extension Data: PredicateValueConvertible {
    /// `.binary(self)`.
    public var predicateValue: AttributeValue { .binary(self) }
}

extension Optional: PredicateArgumentConvertible where Wrapped: PredicateValueConvertible {}

extension Optional: PredicateValueConvertible where Wrapped: PredicateValueConvertible {
    /// The wrapped value's, or `.null` when `nil`.
    public var predicateValue: AttributeValue { self?.predicateValue ?? .null }
}

extension Array: PredicateArgumentConvertible where Element: PredicateValueConvertible {
    /// `.list` of the elements' values.
    public var predicateArgument: PredicateArgument { .list(map(\.predicateValue)) }
}

extension Set: PredicateArgumentConvertible where Element: PredicateValueConvertible {
    /// `.list` of the elements' values, in the set's iteration order.
    public var predicateArgument: PredicateArgument { .list(map(\.predicateValue)) }
}
