/// A logical condition on the objects of one entity: Core Data's `NSPredicate` for Strata.
///
/// A predicate is a plain value (an abstract syntax tree). Make one from a format string
/// with ``init(format:_:)``, or in Swift without strings with ``key(_:)`` and friends; print
/// it back with ``predicateFormat``. Before it can run, bind it to an entity with
/// ``bound(to:in:)-(Entity,_)``, which checks every key and type against the schema.
///
/// Guarantees: a predicate never runs code (there is no `FUNCTION`, `SUBQUERY` or block
/// form), and `try ObjectPredicate(format: p.predicateFormat) == p` for every predicate whose
/// key path components are identifiers (everything the parser produces qualifies).
///
/// It is not named `Predicate` because Foundation (which nearly every client imports)
/// declares `Foundation.Predicate`, and the two names would be ambiguous in client code.
///
/// For example:
/// ```swift
/// let adults = try ObjectPredicate(format: "age >= %@ AND name BEGINSWITH[c] %@", 18, "a")
/// let same = ObjectPredicate.key("age") >= 18 && ObjectPredicate.key("name").beginsWith("a", options: .caseInsensitive)
/// assert(adults == same)
/// ```
public indirect enum ObjectPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: matches every object.
    case truePredicate
    /// `FALSEPREDICATE`: matches no object.
    case falsePredicate
    /// A comparison of two expressions, such as `age >= 18`.
    case comparison(Comparison)
    /// `left AND right`.
    case and(ObjectPredicate, ObjectPredicate)
    /// `left OR right`.
    case or(ObjectPredicate, ObjectPredicate)
    /// `NOT operand`.
    case not(ObjectPredicate)
}

extension ObjectPredicate {
    /// A comparison such as `ANY pets.name BEGINSWITH[c] "r"`: a modifier, two expressions,
    /// an operator and string options.
    public struct Comparison: Sendable, Hashable {
        /// Whether the left side is one value (`.direct`) or quantified over a to-many key path.
        public var modifier: Modifier
        /// The left operand.
        public var left: Expression
        /// The operator.
        public var op: Operator
        /// `[c]`, `[d]` or `[cd]`; only meaningful when both operands are strings.
        public var options: Options
        /// The right operand.
        public var right: Expression

        /// Creates a comparison.
        public init(_ left: Expression, _ op: Operator, _ right: Expression,
                    modifier: Modifier = .direct, options: Options = []) {
            self.modifier = modifier
            self.left = left
            self.op = op
            self.options = options
            self.right = right
        }
    }

    /// How the left side of a comparison is taken: `ANY`, `ALL`, `NONE`, or as one value.
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        /// One value (no keyword).
        case direct
        /// `ANY` (or `SOME`): at least one element of the to-many key path matches.
        case any
        /// `ALL`: every element matches (true when there are none).
        case all
        /// `NONE`: no element matches (true when there are none).
        case none
    }

    /// A comparison operator.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==` (also written `=`).
        case equalTo
        /// `!=` (also written `<>`).
        case notEqualTo
        /// `<`.
        case lessThan
        /// `<=` (also written `=<`).
        case lessThanOrEqualTo
        /// `>`.
        case greaterThan
        /// `>=` (also written `=>`).
        case greaterThanOrEqualTo
        /// `BEGINSWITH`: the left string starts with the right one.
        case beginsWith
        /// `ENDSWITH`: the left string ends with the right one.
        case endsWith
        /// `CONTAINS`: the left string contains the right one.
        case contains
        /// `LIKE`: the left string matches a pattern where `?` is one character and `*` any run.
        case like
        /// `MATCHES`: the whole left string matches a regular expression.
        case matches
        /// `IN`: the left value is one of a list (or of a to-many key path's values).
        case `in`
        /// `BETWEEN`: `lo <= left <= hi` for a two-element list `{lo, hi}`.
        case between

        /// Whether this is `<`, `<=`, `>`, `>=` or `BETWEEN`.
        public var isOrdering: Bool {
            switch self {
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between: return true
            default: return false
            }
        }

        /// Whether this is one of the string operators (`BEGINSWITH` … `MATCHES`).
        public var isStringOperator: Bool {
            switch self {
            case .beginsWith, .endsWith, .contains, .like, .matches: return true
            default: return false
            }
        }
    }

    /// String comparison options: the `[c]`, `[d]` and `[cd]` modifiers.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt8
        /// Creates options from raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `[c]`: compare without regard to case.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: compare without regard to diacritics (`é` equals `e`).
        public static let diacriticInsensitive = Options(rawValue: 2)
    }

    /// An aggregate (collection) operator over a to-many key path.
    public enum Aggregate: String, Sendable, Hashable, CaseIterable {
        /// `@count`: the number of related objects.
        case count
        /// `@sum`: the sum of a numeric key over related objects (0 when there are none).
        case sum
        /// `@avg`: the mean of a numeric key (nil when there are none).
        case avg
        /// `@min`: the smallest value of a key (nil when there are none).
        case min
        /// `@max`: the largest value of a key (nil when there are none).
        case max
    }

    /// One side of a comparison.
    public indirect enum Expression: Sendable, Hashable {
        /// A key path, one name per component: `["team", "name"]` is `team.name`.
        case keyPath([String])
        /// A constant value, such as `42`, `"Ada"` or `NIL`.
        case constant(AttributeValue)
        /// A named variable, `$name`, to substitute before binding.
        case variable(String)
        /// An aggregate over a to-many key path: `.aggregate(.sum, collection: ["pets"],
        /// key: ["age"])` is `pets.@sum.age`; `key` is empty for `@count`.
        case aggregate(Aggregate, collection: [String], key: [String])
        /// A list of constants or variables, `{1, 2, $x}`, for `IN` and `BETWEEN`.
        case list([Expression])
    }
}
