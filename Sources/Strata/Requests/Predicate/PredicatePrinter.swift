import Foundation

extension ObjectPredicate: CustomStringConvertible {
    /// The predicate in format syntax; parsing it gives this predicate back.
    ///
    /// Printing rules: `AND`/`OR` chains are left-nested and parenthesized only where
    /// precedence (NOT > AND > OR) requires; strings are double-quoted with `\"`, `\\`,
    /// `\n`, `\t`, `\r` and `\uXXXX` escapes for other control characters; doubles always
    /// carry a `.` or an exponent (infinities print as `1e999` and `-1e999`); constants
    /// without a literal syntax print in the `CAST` forms the parser accepts:
    /// `CAST(<seconds since 2001-01-01 UTC>, "NSDate")` (as `NSPredicate` prints dates),
    /// `CAST("<UUID>", "UUID")` and `CAST("<base64>", "NSData")`. A key named like a keyword
    /// prints with a leading `#` (`#size`).
    ///
    /// For example:
    /// ```swift
    /// (ObjectPredicate.key("age") >= 18 && ObjectPredicate.key("name").beginsWith("A", options: .caseInsensitive))
    ///     .predicateFormat  // age >= 18 AND name BEGINSWITH[c] "A"
    /// ```
    public var predicateFormat: String { PredicatePrinter.print(self, precedence: 0) }

    /// The same as ``predicateFormat``.
    public var description: String { predicateFormat }
}

extension ObjectPredicate.Expression: CustomStringConvertible {
    /// The expression in format syntax, such as `pets.@sum.age` or `{1, 2}`.
    public var description: String { PredicatePrinter.print(self) }
}

/// Prints predicates back to format syntax.
enum PredicatePrinter {
    static func print(_ p: ObjectPredicate, precedence: Int) -> String {
        switch p {
        case .truePredicate: return "TRUEPREDICATE"
        case .falsePredicate: return "FALSEPREDICATE"
        case .comparison(let c): return print(c)
        case .or(let l, let r):
            return parenthesized(print(l, precedence: 1) + " OR " + print(r, precedence: 2), if: precedence > 1)
        case .and(let l, let r):
            return parenthesized(print(l, precedence: 2) + " AND " + print(r, precedence: 3), if: precedence > 2)
        case .not(let inner):
            return "NOT " + print(inner, precedence: 3)
        }
    }

    private static func parenthesized(_ text: String, if condition: Bool) -> String {
        condition ? "(" + text + ")" : text
    }

    static func print(_ c: ObjectPredicate.Comparison) -> String {
        let modifier: String
        switch c.modifier {
        case .direct: modifier = ""
        case .any: modifier = "ANY "
        case .all: modifier = "ALL "
        case .none: modifier = "NONE "
        }
        var options = ""
        if c.options.contains(.caseInsensitive) { options += "c" }
        if c.options.contains(.diacriticInsensitive) { options += "d" }
        if !options.isEmpty { options = "[" + options + "]" }
        return modifier + print(c.left) + " " + symbol(c.op) + options + " " + print(c.right)
    }

    static func symbol(_ op: ObjectPredicate.Operator) -> String {
        switch op {
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .contains: return "CONTAINS"
        case .like: return "LIKE"
        case .matches: return "MATCHES"
        case .in: return "IN"
        case .between: return "BETWEEN"
        }
    }

    static func print(_ e: ObjectPredicate.Expression) -> String {
        switch e {
        case .keyPath(let components): return keyPath(components)
        case .constant(let value): return literal(value)
        case .variable(let name): return "$" + name
        case .aggregate(let function, let collection, let key):
            let head = keyPath(collection) + ".@" + function.rawValue
            return key.isEmpty ? head : head + "." + keyPath(key)
        case .list(let items): return "{" + items.map(print).joined(separator: ", ") + "}"
        }
    }

    static func keyPath(_ components: [String]) -> String {
        components.map { name in
            PredicateParser.reservedWords.contains(name.uppercased()) ? "#" + name : name
        }.joined(separator: ".")
    }

    static func literal(_ value: AttributeValue) -> String {
        switch value {
        case .null: return "NIL"
        case .bool(let b): return b ? "YES" : "NO"
        case .int(let i): return String(i)
        case .double(let d): return number(d)
        case .string(let s): return quoted(s)
        case .date(let date): return "CAST(\(number(date.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .uuid(let uuid): return "CAST(\"\(uuid.uuidString)\", \"UUID\")"
        case .binary(let data): return "CAST(\"\(data.base64EncodedString())\", \"NSData\")"
        }
    }

    private static func number(_ d: Double) -> String {
        if d.isInfinite { return d < 0 ? "-1e999" : "1e999" }
        return d.description
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
