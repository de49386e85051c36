extension StrataError.Code {
    /// A predicate format string that does not parse, or a constant that the grammar
    /// rejects (an invalid `MATCHES` regular expression, a `BETWEEN` list that does not
    /// have two elements…). The ``StrataError/cause`` is a ``PredicateSyntaxError`` with
    /// the position when the error comes from a format string.
    public static let predicateSyntax = Self(rawValue: "predicateSyntax")
    /// Predicate arguments that do not fit the format string: too many or too few, a
    /// `%d` given a string, a `%K` given a non-key, an unknown or unsubstituted `$variable`.
    public static let predicateArgument = Self(rawValue: "predicateArgument")
}

/// Where and why a predicate format string failed to parse; the ``StrataError/cause`` of a
/// ``StrataError`` whose code is ``StrataError/Code/predicateSyntax`` or
/// ``StrataError/Code/predicateArgument`` when it comes from a format string.
///
/// Positions count `Character`s (grapheme clusters) of the format string: ``offset`` is
/// 0-based (`format.index(format.startIndex, offsetBy: offset)`), ``column`` is 1-based and
/// is what messages print. ``caretLine`` draws the format with a `^` under the position.
///
/// For example:
/// ```swift
/// do { _ = try ObjectPredicate(format: "age >= AND") }
/// catch let error as StrataError {
///     let detail = error.cause as! PredicateSyntaxError
///     print(detail.column)     // 8
///     print(detail.caretLine)  // "age >= AND\n       ^"
/// }
/// ```
public struct PredicateSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The whole format string.
    public var format: String
    /// The 0-based `Character` offset of the problem in ``format``.
    public var offset: Int
    /// What the parser expected there, such as `"a value after '>='"`.
    public var expected: String
    /// What it found there, such as `"'AND'"` or `"the end of the format"`.
    public var found: String

    /// Creates a syntax error detail.
    public init(format: String, offset: Int, expected: String, found: String) {
        self.format = format
        self.offset = offset
        self.expected = expected
        self.found = found
    }

    /// The 1-based column of the problem (``offset`` + 1).
    public var column: Int { offset + 1 }

    /// The format string on one line (line breaks and tabs shown as spaces), then a line
    /// with a `^` under the problem.
    public var caretLine: String {
        let flat = String(format.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return flat + "\n" + String(repeating: " ", count: offset) + "^"
    }

    /// `"expected X, found Y at column N"` followed by the caret lines.
    public var description: String {
        "expected \(expected), found \(found) at column \(column)\n\(caretLine)"
    }
}

extension StrataError {
    /// A `.predicateSyntax` (or `code`) error for a format string position.
    static func predicateSyntax(_ detail: PredicateSyntaxError,
                                code: Code = .predicateSyntax) -> StrataError {
        let what = code == .predicateSyntax ? "Predicate syntax error" : "Predicate argument error"
        return StrataError(
            code,
            "\(what) at column \(detail.column): expected \(detail.expected), "
                + "found \(detail.found).\n\(detail.caretLine)",
            cause: detail)
    }
}
