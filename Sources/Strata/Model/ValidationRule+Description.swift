import Foundation

extension ValidationRule: CustomStringConvertible {
    /// What the rule demands, for messages: `range 0...10`, `length 1...200`,
    /// `pattern /[a-z]+/`, `custom 'even'`. Shows the rule's bounds (schema data), never a
    /// value being checked.
    public var description: String {
        switch self {
        case .range(let min, let max):
            return "range \(Self.bounds(min.map(\.boundDescription), max.map(\.boundDescription)))"
        case .length(let min, let max):
            return "length \(Self.bounds(min.map(String.init), max.map(String.init)))"
        case .pattern(let pattern):
            return "pattern /\(pattern)/"
        case .custom(let custom):
            return custom.description
        }
    }

    /// A phrase completing "must …" in a violation message, measuring lengths in `unit`.
    func requirement(lengthUnit unit: String) -> String {
        switch self {
        case .range(let min, let max):
            return "be in the range \(Self.bounds(min.map(\.boundDescription), max.map(\.boundDescription)))"
        case .length(let min, let max):
            return "have a length (in \(unit)) in the range "
                + Self.bounds(min.map(String.init), max.map(String.init))
        case .pattern(let pattern):
            return "match the pattern /\(pattern)/ in full"
        case .custom(let custom):
            return "pass the custom rule '\(custom.name)'"
        }
    }

    /// `a...b`, `a...` or `...b` (or `...` when both are open).
    private static func bounds(_ min: String?, _ max: String?) -> String {
        "\(min ?? "")...\(max ?? "")"
    }
}

extension AttributeValue {
    /// A bound as written in a rule: numbers plainly, dates in ISO 8601.
    var boundDescription: String {
        switch self {
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .date(let d): return d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case .null: return "nil"
        default: return kindName
        }
    }
}
