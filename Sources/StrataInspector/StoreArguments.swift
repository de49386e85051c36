import ArgumentParser
import Foundation
import Strata
import StrataStorage

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

/// `--key-file PATH`: the key of an encrypted store, for every command that opens one.
struct KeyFileOption: ParsableArguments {
    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "The encryption key of an encrypted store: a file of \(KeyFile.formats).",
        valueName: "file"))
    var path: String?

    /// The cipher for the key, or `nil` without `--key-file` (a plain store).
    ///
    /// - Throws: a usage failure naming the file when it is not a key file.
    func cipher() throws -> (any StoreCipher)? {
        try KeyFile.cipher(path)
    }
}

/// `--at LSN`: the store as it was right after that transaction.
struct AtOption: ParsableArguments {
    @Option(name: .customLong("at"), help: ArgumentHelp(
        "Show the store as it was right after transaction LSN (snapshot plus replay, where the log still reaches).",
        valueName: "LSN"))
    var lsn: UInt64?

    /// Opens the store read-only, as of ``lsn`` when given, with the key of `key`.
    func open(_ store: String, key: KeyFileOption) throws -> StoreInspector {
        try StoreInspector.open(at: store, asOf: lsn, cipher: key.cipher())
    }
}

/// `--where` and `--arg`: which rows a command works on.
struct FilterOptions: ParsableArguments {
    @Option(name: .customLong("where"), help: ArgumentHelp(
        "A predicate in the format-string language, such as \"age >= 18 AND name BEGINSWITH 'A'\".",
        valueName: "predicate"))
    var predicateText: String?

    @Option(name: .customLong("arg"), help: ArgumentHelp(
        "A value for a $variable of the predicate: name=value, or name:type=value with type int, double, bool, string, date or uuid (repeatable). Untyped, numbers and true/false are typed and an ISO 8601 date-time (2025-01-01T05:00:00Z) is a date; quote a string that looks like one: name='\"42\"'.",
        valueName: "name[:type]=value"))
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
            let (name, value) = try Self.variable(String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
            variables[name] = value
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

    /// A `--arg` value: `nil`, true/false, an integer, a double, an ISO 8601 date-time
    /// (`2025-01-01T05:00:00Z`, with a time and a zone), or else a string (surrounding double
    /// or single quotes removed).
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
        if text.contains("T"), let date = isoDate(text) { return .date(date) }
        return .string(text)
    }

    /// The variable of `--arg NAME[:TYPE]=VALUE`.
    ///
    /// - Throws: a usage failure naming the valid types, or saying why the value is not of
    ///   the type.
    static func variable(_ left: String, _ text: String) throws -> (String, AttributeValue) {
        let parts = left.split(separator: ":", maxSplits: 1).map(String.init)
        let name = String(parts[0].trimmingPrefix("$"))
        guard parts.count == 2 else { return (name, typedValue(text)) }
        func bad(_ what: String) -> InspectorFailure {
            InspectorFailure(.usage, "--arg \(left)=\(text): the value is not \(what).")
        }
        switch parts[1].lowercased() {
        case "int", "integer":
            guard let value = Int64(text) else { throw bad("an integer") }
            return (name, .int(value))
        case "double":
            guard let value = Double(text) else { throw bad("a number") }
            return (name, .double(value))
        case "bool":
            switch text.lowercased() {
            case "true", "yes": return (name, .bool(true))
            case "false", "no": return (name, .bool(false))
            default: throw bad("true or false")
            }
        case "string": return (name, .string(text))
        case "date":
            if let date = isoDate(text) { return (name, .date(date)) }
            if let seconds = Double(text) { return (name, .date(Date(timeIntervalSince1970: seconds))) }
            throw bad("an ISO 8601 date (2025-01-01T05:00:00Z, or 2025-01-01 for midnight UTC) or seconds since 1970")
        case "uuid":
            guard let uuid = UUID(uuidString: text) else { throw bad("a UUID") }
            return (name, .uuid(uuid))
        default:
            throw InspectorFailure(.usage, "--arg \(left)=…: '\(parts[1])' is not a type; use int, double, bool, string, date or uuid.")
        }
    }

    /// `2025-01-01T05:00:00Z` (fractional seconds and offsets allowed) or `2025-01-01`
    /// (midnight UTC).
    static func isoDate(_ text: String) -> Date? {
        let styles = [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true),
                      Date.ISO8601FormatStyle().year().month().day()]
        for style in styles {
            if let date = try? style.parse(text) { return date }
        }
        return nil
    }
}
