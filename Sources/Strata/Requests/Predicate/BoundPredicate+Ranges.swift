import Foundation

/// The values an attribute can have in the objects a predicate matches: a necessary
/// condition a store uses to skip chunks whose min/max cannot match.
///
/// A missing bound is unbounded. Numbers compare numerically (integers and doubles mixed),
/// strings by their Unicode scalars after canonical composition (NFC), dates by time. Rows
/// whose attribute is nil never match a range (a comparison with nil is false).
///
/// For example:
/// ```swift
/// let bound = try ObjectPredicate(format: "age >= 100 AND age <= 200").bound(to: "Person", in: schema)
/// let age = bound.rangeConstraints["age"]!   // [100, 200]
/// age.mayOverlap(min: 0, max: 99)            // false: skip the chunk
/// ```
public struct PredicateRange: Sendable, Hashable, CustomStringConvertible {
    /// The lower bound, if any.
    public var lower: AttributeValue?
    /// Whether ``lower`` itself is allowed.
    public var lowerInclusive: Bool
    /// The upper bound, if any.
    public var upper: AttributeValue?
    /// Whether ``upper`` itself is allowed.
    public var upperInclusive: Bool

    /// Creates a range.
    public init(lower: AttributeValue? = nil, lowerInclusive: Bool = true,
                upper: AttributeValue? = nil, upperInclusive: Bool = true) {
        self.lower = lower
        self.lowerInclusive = lowerInclusive
        self.upper = upper
        self.upperInclusive = upperInclusive
    }

    /// Whether no value can be in the range (its bounds cross).
    public var isEmpty: Bool {
        guard let lower, let upper, let order = ValueComparison.order(lower, upper) else { return false }
        return order == .orderedDescending || (order == .orderedSame && !(lowerInclusive && upperInclusive))
    }

    /// Whether `value` is in the range (`.null` never is).
    public func contains(_ value: AttributeValue) -> Bool {
        if value.isNull { return false }
        if let lower, let o = ValueComparison.order(lower, value) {
            if o == .orderedDescending || (o == .orderedSame && !lowerInclusive) { return false }
        }
        if let upper, let o = ValueComparison.order(value, upper) {
            if o == .orderedDescending || (o == .orderedSame && !upperInclusive) { return false }
        }
        return true
    }

    /// Whether a chunk whose non-nil values lie in `min...max` may hold a value in the range.
    /// - Complexity: O(1).
    public func mayOverlap(min: AttributeValue, max: AttributeValue) -> Bool {
        if isEmpty { return false }
        if let lower, let o = ValueComparison.order(max, lower) {
            if o == .orderedAscending || (o == .orderedSame && !lowerInclusive) { return false }
        }
        if let upper, let o = ValueComparison.order(min, upper) {
            if o == .orderedDescending || (o == .orderedSame && !upperInclusive) { return false }
        }
        return true
    }

    /// Interval notation, such as `[100, 200]` or `(-∞, 5)`.
    public var description: String {
        (lowerInclusive && lower != nil ? "[" : "(") + (lower.map(PredicatePrinter.literal) ?? "-∞") + ", "
            + (upper.map(PredicatePrinter.literal) ?? "∞") + (upperInclusive && upper != nil ? "]" : ")")
    }

    /// The range both ranges allow.
    func intersection(_ other: PredicateRange) -> PredicateRange {
        var result = self
        if let l = other.lower {
            if let mine = lower, let o = ValueComparison.order(l, mine) {
                if o == .orderedDescending { result.lower = l; result.lowerInclusive = other.lowerInclusive }
                if o == .orderedSame { result.lowerInclusive = lowerInclusive && other.lowerInclusive }
            } else if lower == nil {
                result.lower = l; result.lowerInclusive = other.lowerInclusive
            }
        }
        if let u = other.upper {
            if let mine = upper, let o = ValueComparison.order(u, mine) {
                if o == .orderedAscending { result.upper = u; result.upperInclusive = other.upperInclusive }
                if o == .orderedSame { result.upperInclusive = upperInclusive && other.upperInclusive }
            } else if upper == nil {
                result.upper = u; result.upperInclusive = other.upperInclusive
            }
        }
        return result
    }

    /// The smallest range holding both ranges.
    func hull(_ other: PredicateRange) -> PredicateRange {
        var result = PredicateRange()
        if let a = lower, let b = other.lower, let o = ValueComparison.order(a, b) {
            (result.lower, result.lowerInclusive) = o == .orderedAscending ? (a, lowerInclusive)
                : o == .orderedDescending ? (b, other.lowerInclusive) : (a, lowerInclusive || other.lowerInclusive)
        }
        if let a = upper, let b = other.upper, let o = ValueComparison.order(a, b) {
            (result.upper, result.upperInclusive) = o == .orderedDescending ? (a, upperInclusive)
                : o == .orderedAscending ? (b, other.upperInclusive) : (a, upperInclusive || other.upperInclusive)
        }
        return result
    }
}

extension BoundPredicate {
    /// For each attribute of the entity itself (not through relationships) that the
    /// predicate constrains to a range, that range: every object the predicate matches has
    /// a non-nil value in it. Derived from comparisons of the attribute with constants
    /// (`==`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN`, without `[c]`/`[d]`) joined by `AND`
    /// (intersected) and `OR` (the hull, when both sides constrain the attribute); `NOT`
    /// and everything else constrain nothing.
    ///
    /// For example: `age >= 100 AND age <= 200` gives `["age": [100, 200]]`.
    /// - Complexity: O(size of the predicate).
    public var rangeConstraints: [String: PredicateRange] { Self.ranges(root) }

    private static func ranges(_ node: BoundNode) -> [String: PredicateRange] {
        switch node {
        case .constant, .not: return [:]
        case .and(let l, let r):
            return ranges(l).merging(ranges(r)) { $0.intersection($1) }
        case .or(let l, let r):
            let a = ranges(l), b = ranges(r)
            var result: [String: PredicateRange] = [:]
            for (key, range) in a { if let other = b[key] { result[key] = range.hull(other) } }
            return result
        case .comparison(let c):
            guard c.modifier == .direct, c.options.isEmpty else { return [:] }
            if case .path(let path) = c.left, path.steps.count == 1, path.endsAtAttribute,
               let range = range(c.op, c.right, flipped: false) {
                return [path.steps[0].name: range]
            }
            if case .path(let path) = c.right, path.steps.count == 1, path.endsAtAttribute,
               let range = range(c.op, c.left, flipped: true) {
                return [path.steps[0].name: range]
            }
            return [:]
        }
    }

    /// The range `attribute op constant` (or `constant op attribute` when `flipped`) implies.
    private static func range(_ op: ObjectPredicate.Operator, _ operand: BoundOperand, flipped: Bool) -> PredicateRange? {
        func orderable(_ v: AttributeValue) -> Bool {
            switch v {
            case .int, .string, .date: return true
            case .double(let d): return !d.isNaN
            default: return false
            }
        }
        switch (op, operand) {
        case (.equalTo, .constant(let v)) where orderable(v):
            return PredicateRange(lower: v, upper: v)
        case (.lessThan, .constant(let v)) where orderable(v):
            return flipped ? PredicateRange(lower: v, lowerInclusive: false) : PredicateRange(upper: v, upperInclusive: false)
        case (.lessThanOrEqualTo, .constant(let v)) where orderable(v):
            return flipped ? PredicateRange(lower: v) : PredicateRange(upper: v)
        case (.greaterThan, .constant(let v)) where orderable(v):
            return flipped ? PredicateRange(upper: v, upperInclusive: false) : PredicateRange(lower: v, lowerInclusive: false)
        case (.greaterThanOrEqualTo, .constant(let v)) where orderable(v):
            return flipped ? PredicateRange(upper: v) : PredicateRange(lower: v)
        case (.between, .list(let values)) where !flipped && values.count == 2 && values.allSatisfy(orderable):
            return PredicateRange(lower: values[0], upper: values[1])
        case (.in, .list(let values)) where !flipped && !values.isEmpty && values.allSatisfy(orderable):
            var low = values[0], high = values[0]
            for v in values.dropFirst() {
                if ValueComparison.order(v, low) == .orderedAscending { low = v }
                if ValueComparison.order(v, high) == .orderedDescending { high = v }
            }
            return PredicateRange(lower: low, upper: high)
        default:
            return nil
        }
    }
}
