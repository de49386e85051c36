import Foundation
import StrataStorage

extension ValidationRule {
    /// Whether `value` passes this rule. `.null` passes every rule (requiredness is the
    /// attribute's optionality); a value of a kind the rule cannot measure (a string against a
    /// numeric range) fails.
    ///
    /// - Complexity: O(n) in the value's length for length and pattern rules.
    public func accepts(_ value: AttributeValue) -> Bool {
        if value.isNull { return true }
        switch self {
        case .range(let min, let max):
            if let min {
                guard let order = value.rangeOrder(comparedTo: min), order >= 0 else { return false }
            }
            if let max {
                guard let order = value.rangeOrder(comparedTo: max), order <= 0 else { return false }
            }
            return true
        case .length(let min, let max):
            guard let length = value.validationLength else { return false }
            if let min, length < min { return false }
            if let max, length > max { return false }
            return true
        case .pattern(let pattern):
            guard case .string(let string) = value,
                  let regex = PatternCache.shared.fullMatchExpression(for: pattern)
            else { return false }
            let range = NSRange(location: 0, length: string.utf16.count)
            return regex.firstMatch(in: string, options: [], range: range) != nil
        case .custom(let custom):
            return custom.check(value)
        }
    }
}

extension AttributeValue {
    /// -1, 0 or 1 comparing numbers (integers and doubles together) or dates; `nil` when the
    /// two cannot be ordered (different kinds, or NaN).
    func rangeOrder(comparedTo other: AttributeValue) -> Int? {
        switch (self, other) {
        case (.int(let a), .int(let b)):
            return a < b ? -1 : (a == b ? 0 : 1)
        case (.date(let a), .date(let b)):
            return a < b ? -1 : (a == b ? 0 : 1)
        default:
            guard let a = numericValue, let b = other.numericValue, !a.isNaN, !b.isNaN else {
                return nil
            }
            return a < b ? -1 : (a == b ? 0 : 1)
        }
    }

    /// The value as a `Double` for mixed integer/double comparisons, or `nil`.
    var numericValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    /// Characters of a string or bytes of binary data, or `nil` for other kinds.
    var validationLength: Int? {
        switch self {
        case .string(let s): return s.count
        case .binary(let d): return d.count
        default: return nil
        }
    }
}

/// Compiled regular expressions for pattern rules, keyed by pattern source, so validating
/// many objects compiles each pattern once. Bounded: it empties itself when full.
final class PatternCache: Sendable {
    /// The process-wide cache.
    static let shared = PatternCache()

    private let storage = Locked<[String: NSRegularExpression]>([:])
    private let limit = 256

    /// Whether `pattern` is a valid regular expression on its own (before wrapping), with
    /// the reason when it is not.
    static func compileError(for pattern: String) -> String? {
        do {
            _ = try NSRegularExpression(pattern: pattern)
            return nil
        } catch {
            return "it is not a valid regular expression (\(error.localizedDescription))"
        }
    }

    /// The expression that matches `pattern` against a whole string, or `nil` if the pattern
    /// does not compile.
    func fullMatchExpression(for pattern: String) -> NSRegularExpression? {
        if let cached = storage.withLock({ $0[pattern] }) { return cached }
        guard Self.compileError(for: pattern) == nil,
              let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z")
        else { return nil }
        storage.withLock { cache in
            if cache.count >= limit { cache.removeAll() }
            cache[pattern] = regex
        }
        return regex
    }
}
