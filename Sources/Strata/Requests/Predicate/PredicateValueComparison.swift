import Foundation

/// String folding for the `[c]` and `[d]` options.
enum Fold {
    /// `string` folded for case (`[c]`) and/or diacritics (`[d]`), with Foundation's
    /// `folding(options:locale:)` and no locale.
    static func fold(_ string: String, _ options: ObjectPredicate.Options) -> String {
        var compare: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compare.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compare.insert(.diacriticInsensitive) }
        return compare.isEmpty ? string : string.folding(options: compare, locale: nil)
    }

    static func fold(_ value: AttributeValue, _ options: ObjectPredicate.Options) -> AttributeValue {
        if case .string(let s) = value { return .string(fold(s, options)) }
        return value
    }

    static func fold(_ operand: BoundOperand, _ options: ObjectPredicate.Options) -> BoundOperand {
        switch operand {
        case .constant(let v): return .constant(fold(v, options))
        case .list(let values): return .list(values.map { fold($0, options) })
        default: return operand
        }
    }
}

/// Comparisons between attribute values with Core Data's semantics.
enum ValueComparison {
    /// The order of two non-nil values of the same kind (integers and doubles compare
    /// numerically and exactly, strings in ``StringOrder``), or `nil` when they have no
    /// order between them.
    static func order(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        case (.int(let x), .double(let y)): return order(x, y)
        case (.double(let x), .int(let y)): return order(y, x).map(flip)
        case (.string(let x), .string(let y)): return StringOrder.compare(x, y)
        case (.date(let x), .date(let y)): return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        default: return nil
        }
    }

    private static func flip(_ r: ComparisonResult) -> ComparisonResult {
        r == .orderedAscending ? .orderedDescending : r == .orderedDescending ? .orderedAscending : .orderedSame
    }

    /// Exact order of an integer and a double (no rounding of large integers).
    static func order(_ i: Int64, _ d: Double) -> ComparisonResult? {
        if d.isNaN { return nil }
        if d >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if d < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let whole = d.rounded(.down)
        let w = Int64(whole)
        if i != w { return i < w ? .orderedAscending : .orderedDescending }
        return d > whole ? .orderedAscending : .orderedSame
    }

    /// `==` for non-nil values: numbers numerically, others by value.
    static func equal(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.int, .double), (.double, .int): return order(a, b) == .orderedSame
        default: return a == b
        }
    }

    /// Whether `string` matches a `LIKE` pattern: `?` is one character, `*` any run
    /// (possibly empty), `\` makes the next character literal. Compares `Character`s.
    static func like(_ string: String, _ pattern: String) -> Bool {
        enum Piece: Equatable { case literal(Character), one, any }
        var pieces: [Piece] = []
        var escaping = false
        for c in pattern {
            if escaping { pieces.append(.literal(c)); escaping = false; continue }
            switch c {
            case "\\": escaping = true
            case "?": pieces.append(.one)
            case "*": pieces.append(.any)
            default: pieces.append(.literal(c))
            }
        }
        if escaping { pieces.append(.literal("\\")) }
        let text = Array(string)
        // Greedy match with backtracking to the last `*` (linear in practice, O(n·m) worst).
        var t = 0, p = 0
        var star: Int?
        var starText = 0
        while t < text.count {
            if p < pieces.count, pieces[p] == .one || pieces[p] == .literal(text[t]) {
                t += 1; p += 1
            } else if p < pieces.count, pieces[p] == .any {
                star = p; starText = t; p += 1
            } else if let s = star {
                p = s + 1; starText += 1; t = starText
            } else {
                return false
            }
        }
        while p < pieces.count, pieces[p] == .any { p += 1 }
        return p == pieces.count
    }
}
