public import Foundation

/// A value that can stand on either side of a comparison built in Swift: a key path
/// (``ObjectPredicate/Operand``), an ``ObjectPredicate/Expression``, or any ``PredicateValueConvertible``
/// value (becoming a constant) or array of them (becoming a list).
public protocol PredicateExpressionConvertible: Sendable {
    /// The expression this value stands for.
    var predicateExpression: ObjectPredicate.Expression { get }
}

extension ObjectPredicate.Expression: PredicateExpressionConvertible {
    /// The expression itself.
    public var predicateExpression: ObjectPredicate.Expression { self }
}

extension AttributeValue: PredicateExpressionConvertible {}
extension Bool: PredicateExpressionConvertible {}
extension Int: PredicateExpressionConvertible {}
extension Int16: PredicateExpressionConvertible {}
extension Int32: PredicateExpressionConvertible {}
extension Int64: PredicateExpressionConvertible {}
extension Double: PredicateExpressionConvertible {}
extension String: PredicateExpressionConvertible {}
extension Substring: PredicateExpressionConvertible {}
extension Date: PredicateExpressionConvertible {}
extension UUID: PredicateExpressionConvertible {}
extension Data: PredicateExpressionConvertible {}
extension Optional: PredicateExpressionConvertible where Wrapped: PredicateValueConvertible {}

extension PredicateValueConvertible {
    /// `.constant(predicateValue)`.
    public var predicateExpression: ObjectPredicate.Expression { .constant(predicateValue) }
}

extension Array: PredicateExpressionConvertible where Element: PredicateValueConvertible {
    /// A `{…}` list of the elements.
    public var predicateExpression: ObjectPredicate.Expression { .list(map { .constant($0.predicateValue) }) }
}

extension ObjectPredicate {
    /// The left side of a comparison being built in Swift: an expression and its modifier.
    ///
    /// Start one with ``ObjectPredicate/key(_:)``, ``ObjectPredicate/any(_:)``, ``ObjectPredicate/all(_:)``,
    /// ``ObjectPredicate/none(_:)`` or ``ObjectPredicate/variable(_:)``; finish it with an operator
    /// (`==`, `!=`, `<`, `<=`, `>`, `>=`) or a method such as ``between(_:_:)``.
    ///
    /// For example:
    /// ```swift
    /// let p = ObjectPredicate.key("age").between(100, 200)
    ///     && .key("name").beginsWith("A", options: .caseInsensitive)
    ///     && .any("pets.name") == "Rex"
    ///     && .key("pets").count > 2
    /// ```
    public struct Operand: PredicateExpressionConvertible {
        /// The expression.
        public var expression: Expression
        /// `.direct`, or how a to-many key path is quantified.
        public var modifier: Modifier

        /// Creates an operand.
        public init(_ expression: Expression, modifier: Modifier = .direct) {
            self.expression = expression
            self.modifier = modifier
        }

        /// The operand's expression.
        public var predicateExpression: Expression { expression }

        private func compare(_ op: Operator, _ other: some PredicateExpressionConvertible,
                             _ options: Options = []) -> ObjectPredicate {
            .comparison(Comparison(expression, op, other.predicateExpression, modifier: modifier, options: options))
        }

        private func aggregate(_ function: Aggregate, _ key: String) -> Operand {
            let collection: [String] = if case .keyPath(let c) = expression { c } else { [] }
            return Operand(.aggregate(function, collection: collection, key: ObjectPredicate.components(key)))
        }

        /// `path.@count`. For example: `ObjectPredicate.key("pets").count > 2`.
        public var count: Operand {
            let collection: [String] = if case .keyPath(let c) = expression { c } else { [] }
            return Operand(.aggregate(.count, collection: collection, key: []))
        }
        /// `path.@sum.key`. For example: `ObjectPredicate.key("pets").sum("age") >= 10`.
        public func sum(_ key: String) -> Operand { aggregate(.sum, key) }
        /// `path.@avg.key`.
        public func avg(_ key: String) -> Operand { aggregate(.avg, key) }
        /// `path.@min.key`.
        public func min(_ key: String) -> Operand { aggregate(.min, key) }
        /// `path.@max.key`.
        public func max(_ key: String) -> Operand { aggregate(.max, key) }

        /// `self == other` with string options. For example: `.key("name").equals("ada", options: .caseInsensitive)`.
        public func equals(_ other: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.equalTo, other, options)
        }
        /// `self != other` with string options.
        public func notEquals(_ other: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.notEqualTo, other, options)
        }
        /// `self == nil`.
        public var isNil: ObjectPredicate { compare(.equalTo, AttributeValue.null) }
        /// `self != nil`.
        public var isNotNil: ObjectPredicate { compare(.notEqualTo, AttributeValue.null) }
        /// `self BEGINSWITH prefix`.
        public func beginsWith(_ prefix: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.beginsWith, prefix, options)
        }
        /// `self ENDSWITH suffix`.
        public func endsWith(_ suffix: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.endsWith, suffix, options)
        }
        /// `self CONTAINS part`.
        public func contains(_ part: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.contains, part, options)
        }
        /// `self LIKE pattern`: `?` is one character, `*` any run, `\` escapes the next one.
        public func like(_ pattern: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.like, pattern, options)
        }
        /// `self MATCHES regex`: the whole string matches the regular expression.
        public func matches(_ regex: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.matches, regex, options)
        }
        /// `self IN {values…}`. For example: `.key("age").isIn([1, 2, 3])`.
        public func isIn(_ values: some PredicateExpressionConvertible, options: Options = []) -> ObjectPredicate {
            compare(.in, values, options)
        }
        /// `self BETWEEN {low, high}` (inclusive).
        public func between(_ low: some PredicateValueConvertible, _ high: some PredicateValueConvertible) -> ObjectPredicate {
            compare(.between, Expression.list([.constant(low.predicateValue), .constant(high.predicateValue)]))
        }

        /// `lhs == rhs`.
        public static func == (lhs: Operand, rhs: some PredicateExpressionConvertible) -> ObjectPredicate { lhs.compare(.equalTo, rhs) }
        /// `lhs != rhs`.
        public static func != (lhs: Operand, rhs: some PredicateExpressionConvertible) -> ObjectPredicate { lhs.compare(.notEqualTo, rhs) }
        /// `lhs < rhs`.
        public static func < (lhs: Operand, rhs: some PredicateExpressionConvertible) -> ObjectPredicate { lhs.compare(.lessThan, rhs) }
        /// `lhs <= rhs`.
        public static func <= (lhs: Operand, rhs: some PredicateExpressionConvertible) -> ObjectPredicate { lhs.compare(.lessThanOrEqualTo, rhs) }
        /// `lhs > rhs`.
        public static func > (lhs: Operand, rhs: some PredicateExpressionConvertible) -> ObjectPredicate { lhs.compare(.greaterThan, rhs) }
        /// `lhs >= rhs`.
        public static func >= (lhs: Operand, rhs: some PredicateExpressionConvertible) -> ObjectPredicate { lhs.compare(.greaterThanOrEqualTo, rhs) }
    }

    /// Splits `"team.name"` into components; `"pets.@count"` and `"pets.@sum.age"` become
    /// aggregates through ``key(_:)``.
    static func components(_ path: String) -> [String] {
        path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// An operand for a key path such as `"age"`, `"team.name"` or `"pets.@count"`.
    public static func key(_ path: String) -> Operand {
        if let segments = KeyPathSegment.split(path),
           let expression = try? KeyPathSegment.expression(from: segments, error: { _, expected in
               PredicateSyntaxError(format: path, offset: 0, expected: expected, found: path)
           }) {
            return Operand(expression)
        }
        return Operand(.keyPath(components(path)))
    }

    /// `ANY path …`: at least one value of the to-many key path matches.
    public static func any(_ path: String) -> Operand { Operand(.keyPath(components(path)), modifier: .any) }
    /// `ALL path …`: every value of the to-many key path matches.
    public static func all(_ path: String) -> Operand { Operand(.keyPath(components(path)), modifier: .all) }
    /// `NONE path …`: no value of the to-many key path matches.
    public static func none(_ path: String) -> Operand { Operand(.keyPath(components(path)), modifier: .none) }
    /// A `$name` variable, to fill with ``substituting(_:)``.
    public static func variable(_ name: String) -> Operand { Operand(.variable(name)) }

    /// `lhs AND rhs`.
    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .and(lhs, rhs) }
    /// `lhs OR rhs`.
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .or(lhs, rhs) }
    /// `NOT operand`.
    public static prefix func ! (operand: ObjectPredicate) -> ObjectPredicate { .not(operand) }
}
