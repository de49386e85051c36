import ArgumentParser
import Foundation
import Strata

/// The store directory every command takes first.
struct StoreArgument: ParsableArguments {
    @Argument(help: "The store directory.")
    var store: String
}

/// The store directory and the entity, for commands that work on one entity.
struct EntityArguments: ParsableArguments {
    @Argument(help: "The store directory.")
    var store: String

    @Argument(help: "The entity's name, as in the stored schema.")
    var entity: String
}

/// `--at LSN`: the store as it was right after that transaction.
struct AtOption: ParsableArguments {
    @Option(name: .customLong("at"), help: ArgumentHelp(
        "Show the store as it was right after transaction LSN (snapshot plus replay, where the log still reaches).",
        valueName: "LSN"))
    var lsn: UInt64?

    /// Opens the store read-only, as of ``lsn`` when given.
    func open(_ store: String) throws -> StoreInspector {
        try StoreInspector.open(at: store, asOf: lsn)
    }
}

/// `--where` and `--arg`: which rows a command works on.
struct FilterOptions: ParsableArguments {
    @Option(name: .customLong("where"), help: ArgumentHelp(
        "A predicate in the format-string language, such as \"age >= 18 AND name BEGINSWITH 'A'\".",
        valueName: "predicate"))
    var predicateText: String?

    @Option(name: .customLong("arg"), help: ArgumentHelp(
        "A value for a $variable of the predicate: name=value (repeatable). Numbers and true/false are typed; quote a string that looks like one: name='\"42\"'.",
        valueName: "name=value"))
    var arguments: [String] = []

    /// The parsed predicate with its variables substituted, or `nil` without `--where`.
    ///
    /// - Throws: `.predicateSyntax` or `.predicateArgument`; a usage failure for a
    ///   malformed `--arg`.
    func predicate() throws -> ObjectPredicate? {
        guard let predicateText else {
            if !arguments.isEmpty { throw InspectorFailure(.usage, "--arg needs --where.") }
            return nil
        }
        var variables: [String: any PredicateArgumentConvertible] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw InspectorFailure(.usage, "--arg '\(argument)' is not name=value.")
            }
            let name = String(argument[..<equals]).trimmingPrefix("$")
            variables[String(name)] = Self.typedValue(String(argument[argument.index(after: equals)...]))
        }
        let predicate = try ObjectPredicate(format: predicateText, arguments: [], variables: variables.isEmpty ? nil : variables)
        if let missing = predicate.variableNames.first {
            let column = predicateText.range(of: "$" + missing).map { predicateText.distance(from: predicateText.startIndex, to: $0.lowerBound) } ?? 0
            throw InspectorFailure(.predicate, """
                the predicate uses $\(missing), which has no value; give one with --arg \(missing)=VALUE.
                \(predicateText)
                \(String(repeating: " ", count: column))^
                """)
        }
        return predicate
    }

    /// A `--arg` value: `nil`, true/false, an integer, a double, or else a string
    /// (surrounding double or single quotes removed).
    static func typedValue(_ text: String) -> AttributeValue {
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return .string(String(text.dropFirst().dropLast()))
        }
        switch text.lowercased() {
        case "nil", "null": return .null
        case "true", "yes": return .bool(true)
        case "false", "no": return .bool(false)
        default: break
        }
        if let int = Int64(text) { return .int(int) }
        if let double = Double(text) { return .double(double) }
        return .string(text)
    }
}
