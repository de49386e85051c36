public import Foundation

extension Attribute {
    /// Creates an attribute, builder style.
    ///
    /// For example:
    /// ```swift
    /// Attribute("done", .bool, default: false)
    /// Attribute("nickname", .string, optional: true).length(...40)
    /// ```
    public init(_ name: String, _ type: AttributeType, optional: Bool = false,
                default defaultValue: AttributeValue = .null) {
        self.init(name: name, type: type, isOptional: optional, defaultValue: defaultValue)
    }

    /// This attribute with `rule` appended to its rules.
    public func rule(_ rule: ValidationRule) -> Attribute {
        var copy = self
        copy.validationRules.append(rule)
        return copy
    }

    /// This attribute with an inclusive range rule: `.range(0...10)`, `.range(0.0...1.0)`, or
    /// a range of dates. Integer bounds on a `double` attribute become doubles.
    public func range<Bound: ValidationBound>(_ range: ClosedRange<Bound>) -> Attribute {
        rule(.range(min: range.lowerBound.boundValue(for: type), max: range.upperBound.boundValue(for: type)))
    }

    /// This attribute with a minimum: `.range(0...)`.
    public func range<Bound: ValidationBound>(_ range: PartialRangeFrom<Bound>) -> Attribute {
        rule(.range(min: range.lowerBound.boundValue(for: type), max: nil))
    }

    /// This attribute with a maximum: `.range(...10)`.
    public func range<Bound: ValidationBound>(_ range: PartialRangeThrough<Bound>) -> Attribute {
        rule(.range(min: nil, max: range.upperBound.boundValue(for: type)))
    }

    /// This attribute with a length rule (characters for strings, bytes for binary data):
    /// `.length(1...200)`.
    public func length(_ range: ClosedRange<Int>) -> Attribute {
        rule(.length(min: range.lowerBound, max: range.upperBound))
    }

    /// This attribute with a minimum length: `.length(1...)`.
    public func length(_ range: PartialRangeFrom<Int>) -> Attribute {
        rule(.length(min: range.lowerBound, max: nil))
    }

    /// This attribute with a maximum length: `.length(...200)`.
    public func length(_ range: PartialRangeThrough<Int>) -> Attribute {
        rule(.length(min: nil, max: range.upperBound))
    }

    /// This attribute with a rule that the whole string matches `pattern` (ICU regular
    /// expression syntax): `.pattern("[a-z]+")`.
    public func pattern(_ pattern: String) -> Attribute {
        rule(.pattern(pattern))
    }

    /// This attribute with a named custom rule. The closure gets non-`nil` values only; the
    /// rule is not written to JSON (see ``ValidationRule``).
    ///
    /// For example:
    /// ```swift
    /// Attribute("count", .int64).validate("even") { $0 == .int(0) || $0 == .int(2) }
    /// ```
    public func validate(_ name: String, _ check: @escaping @Sendable (AttributeValue) -> Bool) -> Attribute {
        rule(.custom(CustomValidation(name, check)))
    }
}

/// A Swift value usable as a range-rule bound: integers, floating-point numbers and dates.
public protocol ValidationBound: Comparable {
    /// The bound as an ``AttributeValue`` for an attribute of `type`.
    func boundValue(for type: AttributeType) -> AttributeValue
}

extension ValidationBound where Self: BinaryInteger {
    /// `.int`, or `.double` for a `double` attribute; values beyond `Int64` saturate.
    public func boundValue(for type: AttributeType) -> AttributeValue {
        if type == .double { return .double(Double(self)) }
        return .int(Int64(clamping: self))
    }
}

extension ValidationBound where Self: BinaryFloatingPoint {
    /// `.double`.
    public func boundValue(for type: AttributeType) -> AttributeValue { .double(Double(self)) }
}

extension Int: ValidationBound {}
extension Int16: ValidationBound {}
extension Int32: ValidationBound {}
extension Int64: ValidationBound {}
extension Double: ValidationBound {}
extension Float: ValidationBound {}

extension Date: ValidationBound {
    /// `.date`.
    public func boundValue(for type: AttributeType) -> AttributeValue { .date(self) }
}
