import Foundation

/// A recursive-descent parser for Core Data's predicate format grammar (see
/// `docs` and ``Predicate/init(format:arguments:variables:)``). Arguments are substituted
/// while parsing, so errors about them carry a position.
struct PredicateParser {
    /// Words that are keywords wherever they stand (case-insensitive); a key with one of
    /// these names is written with a leading `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "MATCHES", "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "YES",
        "NO", "TRUE", "FALSE", "NIL", "NULL", "CAST",
        // Not supported, reserved so that they fail with a clear message:
        "FUNCTION", "SUBQUERY", "SELF", "FIRST", "LAST", "SIZE", "ASSIGN",
    ]

    /// Keywords that Core Data has and Strata refuses, because they run code.
    static let unsupportedWords: Set<String> = ["FUNCTION", "SUBQUERY", "ASSIGN"]

    private let format: String
    private let tokens: [PredicateToken]
    private var index = 0
    private let arguments: [PredicateArgument]
    private var argumentIndex = 0
    private let variables: [String: PredicateArgument]?

    private init(format: String, tokens: [PredicateToken], arguments: [PredicateArgument],
                 variables: [String: PredicateArgument]?) {
        self.format = format
        self.tokens = tokens
        self.arguments = arguments
        self.variables = variables
    }

    /// Parses `format`, substituting `arguments` in order and `variables` by name (when
    /// `variables` is `nil`, `$name`s stay in the predicate as ``Predicate/Expression/variable(_:)``).
    static func parse(_ format: String, arguments: [PredicateArgument],
                      variables: [String: PredicateArgument]?) throws(StrataError) -> ObjectPredicate {
        do {
            let tokens = try PredicateLexer.tokenize(format)
            var parser = PredicateParser(format: format, tokens: tokens, arguments: arguments,
                                         variables: variables)
            let predicate = try parser.parseOr()
            try parser.expectEnd()
            if parser.argumentIndex < arguments.count {
                throw StrataError.predicateSyntax(
                    parser.detail(at: parser.current,
                                  expected: "\(parser.argumentIndex) argument(s), one per specifier",
                                  found: "\(arguments.count) arguments"), code: .predicateArgument)
            }
            return predicate
        } catch let error as PredicateSyntaxError {
            throw StrataError.predicateSyntax(error)
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.predicateSyntax, "\(error)")
        }
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[index] }

    private mutating func advance() -> PredicateToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    /// The upper-cased keyword at the current token, if it is an unescaped reserved word.
    private var keyword: String? {
        guard case .identifier(let name, escaped: false) = current.kind else { return nil }
        let upper = name.uppercased()
        return Self.reservedWords.contains(upper) ? upper : nil
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private func detail(at token: PredicateToken, expected: String, found: String? = nil) -> PredicateSyntaxError {
        PredicateSyntaxError(format: format, offset: token.offset, expected: expected,
                             found: found ?? token.quoted)
    }

    private func fail(_ expected: String) -> PredicateSyntaxError {
        if let word = keyword, Self.unsupportedWords.contains(word) {
            return detail(at: current, expected: expected,
                          found: "'\(word)', which Strata does not support (a predicate cannot run code)")
        }
        if case .identifier(let name, escaped: false) = current.kind, let word = keyword,
           ["SELF", "FIRST", "LAST", "SIZE"].contains(word) {
            return detail(at: current, expected: expected,
                          found: "the reserved word '\(name)' (write #\(name) for a key with that name)")
        }
        return detail(at: current, expected: expected)
    }

    private mutating func expectSymbol(_ symbol: String, _ expected: String) throws(PredicateSyntaxError) {
        guard isSymbol(symbol) else { throw fail(expected) }
        _ = advance()
    }

    private func expectEnd() throws(PredicateSyntaxError) {
        guard case .end = current.kind else { throw fail("AND, OR or the end of the format") }
    }

    // MARK: Predicates

    private mutating func parseOr() throws(StrataError) -> ObjectPredicate {
        var left = try parseAnd()
        while keyword == "OR" || isSymbol("||") {
            _ = advance()
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(StrataError) -> ObjectPredicate {
        var left = try parseNot()
        while keyword == "AND" || isSymbol("&&") {
            _ = advance()
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws(StrataError) -> ObjectPredicate {
        if keyword == "NOT" || isSymbol("!") {
            _ = advance()
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(StrataError) -> ObjectPredicate {
        if isSymbol("(") {
            _ = advance()
            let inner = try parseOr()
            try wrap { () throws(PredicateSyntaxError) in try expectSymbol(")", "')' or an AND/OR") }
            return inner
        }
        switch keyword {
        case "TRUEPREDICATE": _ = advance(); return .truePredicate
        case "FALSEPREDICATE": _ = advance(); return .falsePredicate
        default: return .comparison(try parseComparison())
        }
    }

    private func wrap(_ body: () throws(PredicateSyntaxError) -> Void) throws(StrataError) {
        do { try body() } catch { throw StrataError.predicateSyntax(error) }
    }

    private mutating func parseComparison() throws(StrataError) -> ObjectPredicate.Comparison {
        var modifier = ObjectPredicate.Modifier.direct
        switch keyword {
        case "ANY", "SOME": modifier = .any
        case "ALL": modifier = .all
        case "NONE": modifier = .none
        default: break
        }
        if modifier != .direct { _ = advance() }

        let left = try parseExpression(expected: modifier == .direct
            ? "a predicate: a key, a value, '(', NOT, ANY, ALL, NONE or TRUEPREDICATE"
            : "a to-many key path after \(modifier.rawValue.uppercased())")
        let opToken = current
        guard let op = operatorAtCurrent() else {
            throw StrataError.predicateSyntax(fail(
                "an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES, IN, BETWEEN)"))
        }
        _ = advance()
        var options: ObjectPredicate.Options = []
        if isSymbol("[") {
            options = try parseOptions()
        }
        let right = try parseExpression(expected: "a value or key after '\(opToken.text)'")
        if op == .between, case .list(let items) = right, items.count != 2 {
            throw StrataError.predicateSyntax(detail(
                at: opToken, expected: "BETWEEN with a two-element list {lo, hi}",
                found: "a list of \(items.count)"))
        }
        if op == .matches, case .constant(.string(let pattern)) = right,
           let problem = PredicateRegex.problem(with: pattern) {
            throw StrataError.predicateSyntax(detail(
                at: opToken, expected: "a valid regular expression after MATCHES", found: problem))
        }
        return ObjectPredicate.Comparison(left, op, right, modifier: modifier, options: options)
    }

    private func operatorAtCurrent() -> ObjectPredicate.Operator? {
        switch current.kind {
        case .symbol("=="): return .equalTo
        case .symbol("!="): return .notEqualTo
        case .symbol("<"): return .lessThan
        case .symbol("<="): return .lessThanOrEqualTo
        case .symbol(">"): return .greaterThan
        case .symbol(">="): return .greaterThanOrEqualTo
        default: break
        }
        switch keyword {
        case "BEGINSWITH": return .beginsWith
        case "ENDSWITH": return .endsWith
        case "CONTAINS": return .contains
        case "LIKE": return .like
        case "MATCHES": return .matches
        case "IN": return .in
        case "BETWEEN": return .between
        default: return nil
        }
    }

    private mutating func parseOptions() throws(StrataError) -> ObjectPredicate.Options {
        _ = advance()
        guard case .identifier(let flags, escaped: false) = current.kind,
              !flags.isEmpty, flags.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
            throw StrataError.predicateSyntax(fail("c, d or cd inside '[ ]' after the operator"))
        }
        _ = advance()
        var options: ObjectPredicate.Options = []
        if flags.lowercased().contains("c") { options.insert(.caseInsensitive) }
        if flags.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
        try wrap { () throws(PredicateSyntaxError) in try expectSymbol("]", "']' after the options") }
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression(expected: String) throws(StrataError) -> ObjectPredicate.Expression {
        let token = current
        switch token.kind {
        case .integer(let v): _ = advance(); return .constant(.int(v))
        case .double(let v): _ = advance(); return .constant(.double(v))
        case .string(let v): _ = advance(); return .constant(.string(v))
        case .variable(let name): _ = advance(); return try substitute(variable: name, at: token)
        case .argument(let spec):
            _ = advance()
            if spec == "K" { return try parseKeyPath(first: token) }
            return try argumentExpression(spec: spec, at: token)
        case .symbol("{"):
            return try parseList()
        case .identifier(_, escaped: let escaped):
            switch escaped ? nil : keyword {
            case "YES", "TRUE": _ = advance(); return .constant(.bool(true))
            case "NO", "FALSE": _ = advance(); return .constant(.bool(false))
            case "NIL", "NULL": _ = advance(); return .constant(.null)
            case "CAST": return .constant(try parseCast())
            case nil: return try parseKeyPath(first: token)
            default: throw StrataError.predicateSyntax(fail(expected))
            }
        default:
            throw StrataError.predicateSyntax(fail(expected))
        }
    }

    private mutating func parseList() throws(StrataError) -> ObjectPredicate.Expression {
        _ = advance()
        var items: [ObjectPredicate.Expression] = []
        if isSymbol("}") { _ = advance(); return .list(items) }
        while true {
            let token = current
            let item = try parseExpression(expected: "a value in the list")
            switch item {
            case .constant, .variable: items.append(item)
            case .keyPath, .aggregate, .list:
                throw StrataError.predicateSyntax(detail(
                    at: token, expected: "a constant, an argument or a $variable in the list"))
            }
            if isSymbol(",") { _ = advance(); continue }
            try wrap { () throws(PredicateSyntaxError) in try expectSymbol("}", "',' or '}' in the list") }
            return .list(items)
        }
    }

    /// `CAST(<number>, "NSDate")`, `CAST("<uuid>", "UUID")` or `CAST("<base64>", "NSData")`:
    /// the literal forms of constants the grammar has no plain literal for.
    private mutating func parseCast() throws(StrataError) -> AttributeValue {
        _ = advance()
        try wrap { () throws(PredicateSyntaxError) in try expectSymbol("(", "'(' after CAST") }
        let valueToken = advance()
        try wrap { () throws(PredicateSyntaxError) in try expectSymbol(",", "',' after the CAST value") }
        let typeToken = advance()
        guard case .string(let typeName) = typeToken.kind else {
            throw StrataError.predicateSyntax(detail(at: typeToken, expected: "\"NSDate\", \"UUID\" or \"NSData\""))
        }
        try wrap { () throws(PredicateSyntaxError) in try expectSymbol(")", "')' to close CAST") }
        switch (typeName, valueToken.kind) {
        case ("NSDate", .integer(let seconds)):
            return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case ("NSDate", .double(let seconds)):
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case ("UUID", .string(let text)):
            if let uuid = UUID(uuidString: text) { return .uuid(uuid) }
        case ("NSData", .string(let text)):
            if let data = Data(base64Encoded: text) { return .binary(data) }
        case ("NSDate", _), ("UUID", _), ("NSData", _):
            break
        default:
            throw StrataError.predicateSyntax(detail(at: typeToken, expected: "\"NSDate\", \"UUID\" or \"NSData\""))
        }
        throw StrataError.predicateSyntax(detail(
            at: valueToken, expected: "seconds since 2001 for NSDate, a UUID string for UUID, "
                + "base64 for NSData in CAST", found: valueToken.quoted))
    }

    // MARK: Key paths

    /// A key path starting at `first` (a name or a `%K`), with its `.name` / `.@op` tail.
    private mutating func parseKeyPath(first: PredicateToken) throws(StrataError) -> ObjectPredicate.Expression {
        var segments: [(segment: KeyPathSegment, token: PredicateToken)] = []
        func add(_ token: PredicateToken) throws(StrataError) {
            switch token.kind {
            case .identifier(let name, _):
                segments.append((.name(name), token))
            case .aggregate(let name):
                segments.append((.aggregate(name), token))
            case .argument:
                for segment in try keyPathArgument(at: token) { segments.append((segment, token)) }
            default:
                throw StrataError.predicateSyntax(detail(at: token, expected: "a key after '.'"))
            }
        }
        if case .identifier = first.kind { _ = advance() }
        try add(first)
        while isSymbol(".") {
            _ = advance()
            let token = advance()
            if case .argument("K") = token.kind { try add(token); continue }
            if case .argument = token.kind {
                throw StrataError.predicateSyntax(detail(at: token, expected: "a key or %K after '.'"))
            }
            try add(token)
        }
        do {
            return try KeyPathSegment.expression(from: segments.map(\.segment)) { i, expected in
                detail(at: segments[i].token, expected: expected)
            }
        } catch {
            throw StrataError.predicateSyntax(error)
        }
    }

    private mutating func keyPathArgument(at token: PredicateToken) throws(StrataError) -> [KeyPathSegment] {
        let argument = try nextArgument(at: token)
        let path: String
        switch argument {
        case .keyPath(let p), .value(.string(let p)): path = p
        default:
            throw StrataError.predicateSyntax(detail(
                at: token, expected: "a key path string for %K", found: argumentKind(argument)),
                code: .predicateArgument)
        }
        guard let segments = KeyPathSegment.split(path) else {
            throw StrataError.predicateSyntax(detail(
                at: token, expected: "a key path of names separated by '.' for %K",
                found: "a string that is not one"), code: .predicateArgument)
        }
        return segments
    }

    // MARK: Arguments and variables

    private mutating func nextArgument(at token: PredicateToken) throws(StrataError) -> PredicateArgument {
        guard argumentIndex < arguments.count else {
            throw StrataError.predicateSyntax(detail(
                at: token, expected: "argument #\(argumentIndex + 1) for \(token.text)",
                found: "only \(arguments.count) argument(s)"), code: .predicateArgument)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private func argumentKind(_ argument: PredicateArgument) -> String {
        switch argument {
        case .value(let v): return "a \(v.kindName)"
        case .list: return "a list"
        case .keyPath: return "a key path"
        }
    }

    private mutating func argumentExpression(spec: Character, at token: PredicateToken) throws(StrataError) -> ObjectPredicate.Expression {
        let argument = try nextArgument(at: token)
        switch (spec, argument) {
        case ("@", .value(let v)): return try constant(v, at: token)
        case ("@", .list(let values)):
            var items: [ObjectPredicate.Expression] = []
            for v in values { items.append(try constant(v, at: token)) }
            return .list(items)
        case ("d", .value(.int(let v))), ("i", .value(.int(let v))): return .constant(.int(v))
        case ("f", .value(.double(let v))): return try constant(.double(v), at: token)
        case ("f", .value(.int(let v))): return .constant(.double(Double(v)))
        default:
            let wanted = spec == "@" ? "a value or a list (use %K for a key path)"
                : spec == "f" ? "a number for %f" : "an integer for %\(spec)"
            throw StrataError.predicateSyntax(detail(at: token, expected: wanted, found: argumentKind(argument)),
                                              code: .predicateArgument)
        }
    }

    private func constant(_ value: AttributeValue, at token: PredicateToken) throws(StrataError) -> ObjectPredicate.Expression {
        if case .double(let d) = value, d.isNaN {
            throw StrataError.predicateSyntax(detail(at: token, expected: "a number", found: "NaN"),
                                              code: .predicateArgument)
        }
        return .constant(value)
    }

    private func substitute(variable name: String, at token: PredicateToken) throws(StrataError) -> ObjectPredicate.Expression {
        guard let variables else { return .variable(name) }
        guard let argument = variables[name] else {
            throw StrataError.predicateSyntax(detail(
                at: token, expected: "a variable the dictionary defines (\(variables.keys.sorted().map { "$" + $0 }.joined(separator: ", ")))",
                found: "'$\(name)'"), code: .predicateArgument)
        }
        do {
            return try ObjectPredicate.Expression.substitution(argument)
        } catch {
            throw StrataError.predicateSyntax(detail(at: token, expected: error.expected, found: error.found),
                                              code: .predicateArgument)
        }
    }
}
