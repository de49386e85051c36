/// A rule that a non-`nil` attribute value must pass before a context saves it.
///
/// Rules only look at values: `nil` (`.null`) passes every rule, and whether `nil` is allowed
/// at all is the attribute's ``Attribute/isOptional``. Batch requests skip rules (but never
/// type checking).
///
/// The data rules (``range(min:max:)``, ``length(min:max:)``, ``pattern(_:)``) are written to
/// the schema's JSON and stored in the store. A ``custom(_:)`` rule is code, so:
/// - two custom rules are equal when their **names** are equal (closures cannot be compared);
/// - custom rules are **left out** of the JSON form and of the store, so a schema read back
///   from JSON has none, and ``Schema/differences(from:)`` ignores them;
/// - encoding a lone custom rule with `Codable` throws an `EncodingError`.
///
/// For example:
/// ```swift
/// let rules: [ValidationRule] = [
///     .range(min: 0, max: 10),
///     .custom(CustomValidation("even") { $0 != .int(1) }),
/// ]
/// ```
public enum ValidationRule: Sendable, Hashable {
    /// The value must lie within inclusive bounds; a `nil` bound is open.
    ///
    /// Bounds are `.int` for integer attributes, `.double` for `double` attributes and
    /// `.date` for `date` attributes (``Schema/validate()`` checks this).
    case range(min: AttributeValue?, max: AttributeValue?)
    /// The length must lie within inclusive bounds: characters (grapheme clusters) for
    /// `string` attributes, bytes for `binary` attributes; a `nil` bound is open.
    case length(min: Int?, max: Int?)
    /// The whole string must match this regular expression (ICU syntax, as
    /// `NSRegularExpression`); a match of only part of the string does not count.
    case pattern(String)
    /// A named closure that returns whether a value is acceptable. Not serialized.
    case custom(CustomValidation)

    /// The rule's kind: `"range"`, `"length"`, `"pattern"` or `"custom"`.
    public var kind: String {
        switch self {
        case .range: return "range"
        case .length: return "length"
        case .pattern: return "pattern"
        case .custom: return "custom"
        }
    }

    /// Whether the rule is data that the JSON form and the store keep (every kind but custom).
    public var isSerializable: Bool {
        if case .custom = self { return false }
        return true
    }
}

/// A named validation closure for ``ValidationRule/custom(_:)``.
///
/// The name stands for the closure: it is what equality, hashing, schema differences and
/// violation messages use, so give different checks different names.
///
/// For example:
/// ```swift
/// let even = CustomValidation("even") { value in
///     if case .int(let n) = value { return n % 2 == 0 }
///     return false
/// }
/// ```
public struct CustomValidation: Sendable, Hashable, CustomStringConvertible {
    /// The rule's name, shown in violations (for example `"even"`).
    public let name: String
    /// Returns `true` when the (non-`nil`) value is acceptable.
    public let check: @Sendable (AttributeValue) -> Bool

    /// Creates a named custom rule.
    public init(_ name: String, _ check: @escaping @Sendable (AttributeValue) -> Bool) {
        self.name = name
        self.check = check
    }

    /// Compares names only; closures cannot be compared.
    public static func == (lhs: CustomValidation, rhs: CustomValidation) -> Bool {
        lhs.name == rhs.name
    }

    /// Hashes the name only.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
    }

    /// `custom 'name'`.
    public var description: String { "custom '\(name)'" }
}
