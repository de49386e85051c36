/// One dot-separated piece of a key path as written: a name or an `@aggregate`.
enum KeyPathSegment: Sendable, Equatable {
    case name(String)
    case aggregate(String)

    /// Splits `"team.name"` or `"pets.@sum.age"`; `nil` when a piece is neither a name nor
    /// `@name`.
    static func split(_ path: String) -> [KeyPathSegment]? {
        let pieces = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var segments: [KeyPathSegment] = []
        for piece in pieces {
            if piece.hasPrefix("@"), PredicateLexer.isIdentifier(String(piece.dropFirst())) {
                segments.append(.aggregate(String(piece.dropFirst())))
            } else if PredicateLexer.isIdentifier(piece) {
                segments.append(.name(piece))
            } else {
                return nil
            }
        }
        return segments
    }

    /// The key path or aggregate expression the segments spell; `error(i, expected)` makes
    /// the error for a problem at segment `i`.
    static func expression(
        from segments: [KeyPathSegment],
        error: (Int, String) -> PredicateSyntaxError
    ) throws(PredicateSyntaxError) -> ObjectPredicate.Expression {
        guard let at = segments.firstIndex(where: { if case .aggregate = $0 { true } else { false } }) else {
            return .keyPath(segments.map { if case .name(let n) = $0 { n } else { "" } })
        }
        guard case .aggregate(let name) = segments[at],
              let function = ObjectPredicate.Aggregate(rawValue: name.lowercased()) else {
            throw error(at, "@count, @sum, @avg, @min or @max")
        }
        guard at > 0 else { throw error(at, "a to-many key path before @\(name)") }
        let collection = segments[..<at].map { if case .name(let n) = $0 { n } else { "" } }
        let rest = segments[(at + 1)...]
        if function == .count {
            guard rest.isEmpty else { throw error(at + 1, "nothing after @count") }
            return .aggregate(.count, collection: collection, key: [])
        }
        guard !rest.isEmpty else { throw error(at, "'.' and a key after @\(name)") }
        var key: [String] = []
        for (i, segment) in zip(rest.indices, rest) {
            guard case .name(let n) = segment else { throw error(i, "a key (one aggregate per key path)") }
            key.append(n)
        }
        return .aggregate(function, collection: collection, key: key)
    }
}

/// What is wrong with a substituted value.
struct SubstitutionProblem: Error {
    var expected: String
    var found: String
}

extension ObjectPredicate.Expression {
    /// The expression an argument or variable value stands for.
    static func substitution(_ argument: PredicateArgument) throws(SubstitutionProblem) -> Self {
        func checked(_ value: AttributeValue) throws(SubstitutionProblem) -> Self {
            if case .double(let d) = value, d.isNaN {
                throw SubstitutionProblem(expected: "a number", found: "NaN")
            }
            return .constant(value)
        }
        switch argument {
        case .value(let value):
            return try checked(value)
        case .list(let values):
            var items: [Self] = []
            for value in values { items.append(try checked(value)) }
            return .list(items)
        case .keyPath(let path):
            guard let segments = KeyPathSegment.split(path) else {
                throw SubstitutionProblem(expected: "a key path of names separated by '.'",
                                          found: "a string that is not one")
            }
            do {
                return try KeyPathSegment.expression(from: segments) { _, expected in
                    PredicateSyntaxError(format: path, offset: 0, expected: expected, found: "'\(path)'")
                }
            } catch {
                throw SubstitutionProblem(expected: error.expected, found: error.found)
            }
        }
    }
}

extension ObjectPredicate {
    /// The names of the `$variables` this predicate still contains, sorted.
    ///
    /// For example:
    /// ```swift
    /// try ObjectPredicate(format: "age > $min AND age < $max").variableNames  // ["max", "min"]
    /// ```
    public var variableNames: [String] {
        var names = Set<String>()
        func visit(_ e: Expression) {
            switch e {
            case .variable(let n): names.insert(n)
            case .list(let items): items.forEach(visit)
            default: break
            }
        }
        func visit(_ p: ObjectPredicate) {
            switch p {
            case .truePredicate, .falsePredicate: break
            case .comparison(let c): visit(c.left); visit(c.right)
            case .and(let l, let r), .or(let l, let r): visit(l); visit(r)
            case .not(let inner): visit(inner)
            }
        }
        visit(self)
        return names.sorted()
    }

    /// This predicate with every `$variable` replaced by its value (a value, a list, or a
    /// ``PredicateArgument/keyPath(_:)``). Core Data's `withSubstitutionVariables(_:)`.
    ///
    /// For example:
    /// ```swift
    /// let template = try ObjectPredicate(format: "age >= $min")
    /// let adults = try template.substituting(["min": 18])
    /// ```
    /// - Throws: ``StrataError`` `.predicateArgument` when a variable has no value, when a
    ///   list is given for a variable inside a `{…}` list, or when a value is NaN.
    public func substituting(_ variables: [String: any PredicateArgumentConvertible]) throws(StrataError) -> ObjectPredicate {
        let arguments = variables.mapValues(\.predicateArgument)
        func replace(_ e: Expression, inList: Bool) throws(StrataError) -> Expression {
            switch e {
            case .variable(let name):
                guard let argument = arguments[name] else {
                    throw StrataError(.predicateArgument,
                                      "No value for the predicate variable $\(name); pass it to substituting(_:).",
                                      key: name)
                }
                let result: Expression
                do { result = try .substitution(argument) } catch {
                    throw StrataError(.predicateArgument,
                                      "The value for $\(name) is \(error.found); expected \(error.expected).", key: name)
                }
                switch result {
                case .constant: return result
                default:
                    guard !inList else {
                        throw StrataError(.predicateArgument,
                                          "The value for $\(name) inside a {…} list must be a single value.", key: name)
                    }
                    return result
                }
            case .list(let items):
                var out: [Expression] = []
                for item in items { out.append(try replace(item, inList: true)) }
                return .list(out)
            default:
                return e
            }
        }
        func walk(_ p: ObjectPredicate) throws(StrataError) -> ObjectPredicate {
            switch p {
            case .truePredicate, .falsePredicate: return p
            case .comparison(var c):
                c.left = try replace(c.left, inList: false)
                c.right = try replace(c.right, inList: false)
                return .comparison(c)
            case .and(let l, let r): return .and(try walk(l), try walk(r))
            case .or(let l, let r): return .or(try walk(l), try walk(r))
            case .not(let inner): return .not(try walk(inner))
            }
        }
        return try walk(self)
    }
}
