import Foundation
import StrataStorage

/// A compiled `MATCHES` pattern: a whole-string regular expression.
///
/// `NSRegularExpression` is immutable after creation and documented as safe to use from
/// several threads at once, which is what makes this `@unchecked Sendable` wrapper safe.
final class PredicateRegex: @unchecked Sendable {
    private let expression: NSRegularExpression

    private init(_ expression: NSRegularExpression) { self.expression = expression }

    /// Recently compiled patterns, so that binding the same predicate again is cheap.
    private static let cache = Locked<[CacheKey: PredicateRegex]>([:])
    private static let cacheLimit = 128

    private struct CacheKey: Hashable {
        var pattern: String
        var caseInsensitive: Bool
    }

    /// Compiles `pattern` anchored to the whole string (`\A(?:pattern)\z`).
    /// - Throws: the `NSRegularExpression` error when the pattern is invalid.
    static func compile(_ pattern: String, caseInsensitive: Bool) throws -> PredicateRegex {
        let key = CacheKey(pattern: pattern, caseInsensitive: caseInsensitive)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        let compiled = PredicateRegex(try NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: options))
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[key] = compiled
        }
        return compiled
    }

    /// `nil` when `pattern` compiles, else a short description of the problem.
    static func problem(with pattern: String) -> String? {
        do {
            _ = try compile(pattern, caseInsensitive: false)
            return nil
        } catch {
            return "an invalid regular expression"
        }
    }

    /// Whether the whole of `string` matches.
    func matches(_ string: String) -> Bool {
        let range = NSRange(string.startIndex..<string.endIndex, in: string)
        return expression.firstMatch(in: string, options: [], range: range) != nil
    }
}
