import Foundation

/// A `PredicateExpressions` node the ``PredicateTranslator`` knows how to translate.
protocol TranslatableExpression {
    /// This node's term.
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term
}

extension PredicateExpressions.Variable: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        guard let path = translator.bindings[key] else {
            throw translator.unsupported("a variable the predicate does not bind", hint: "use the closure's parameter")
        }
        return .path(path)
    }
}

extension PredicateExpressions.KeyPath: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        try translator.keyPath(root: root, keyPath: keyPath, rootType: Root.Output.self, output: Output.self)
    }
}

extension PredicateExpressions.Value: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        if let list = PredicateConstant.list(value) { return .list(list) }
        guard let stored = PredicateConstant.attributeValue(value) else {
            throw translator.unsupported("a value of type \(Output.self)", hint: "compare with values of the stored types (numbers, strings, dates, UUIDs, data, URLs, raw-value enums)")
        }
        return .value(stored, Output.self)
    }
}

extension PredicateExpressions.NilLiteral: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .value(.null, Output.self)
    }
}

extension PredicateExpressions.Conjunction: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(PredicateTranslator.between(try translator.condition(lhs), try translator.condition(rhs)))
    }
}

extension PredicateTranslator {
    /// `left AND right`, or `x BETWEEN {lo, hi}` when they are `x >= lo` and `x <= hi` on
    /// the same key path (either order): the form the string predicate would use, which the
    /// engine scans as one range.
    static func between(_ left: ObjectPredicate, _ right: ObjectPredicate) -> ObjectPredicate {
        guard case .comparison(let a) = left, case .comparison(let b) = right,
              a.modifier == .direct, b.modifier == .direct, a.options.isEmpty, b.options.isEmpty,
              case .keyPath(let pathA) = a.left, case .keyPath(let pathB) = b.left, pathA == pathB,
              case .constant(let x) = a.right, case .constant(let y) = b.right, !x.isNull, !y.isNull else {
            return .and(left, right)
        }
        switch (a.op, b.op) {
        case (.greaterThanOrEqualTo, .lessThanOrEqualTo):
            return .comparison(.init(.keyPath(pathA), .between, .list([.constant(x), .constant(y)])))
        case (.lessThanOrEqualTo, .greaterThanOrEqualTo):
            return .comparison(.init(.keyPath(pathA), .between, .list([.constant(y), .constant(x)])))
        default:
            return .and(left, right)
        }
    }
}

extension PredicateExpressions.Disjunction: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(.or(try translator.condition(lhs), try translator.condition(rhs)))
    }
}

extension PredicateExpressions.Negation: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(.not(try translator.condition(wrapped)))
    }
}

extension PredicateExpressions.Equal: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(try translator.comparison(lhs, .equalTo, rhs))
    }
}

extension PredicateExpressions.NotEqual: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(try translator.comparison(lhs, .notEqualTo, rhs))
    }
}

extension PredicateExpressions.Comparison: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        let engine: ObjectPredicate.Operator
        switch op {
        case .lessThan: engine = .lessThan
        case .lessThanOrEqual: engine = .lessThanOrEqualTo
        case .greaterThan: engine = .greaterThan
        case .greaterThanOrEqual: engine = .greaterThanOrEqualTo
        @unknown default: throw translator.unsupported("the comparison operator \(op)", hint: "use <, <=, > or >=")
        }
        return .predicate(try translator.comparison(lhs, engine, rhs))
    }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(try translator.stringTest(base, .contains, other, construct: "contains(_:)"))
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(try translator.stringTest(base, .beginsWith, prefix, construct: "starts(with:)"))
    }
}

extension PredicateExpressions.SequenceContains: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        let list = try translator.term(sequence)
        let item = try translator.term(element)
        guard case .list(let values) = list, case .path(let path) = item, path.model == nil else {
            throw translator.unsupported("contains(_:) on \(PredicateTranslator.describe(list))", hint: "write [a, b, c].contains($0.property) with a list of values")
        }
        return .predicate(.comparison(.init(.keyPath(path.components), .in, .list(values.map { .constant($0) }), modifier: path.modifier)))
    }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(try translator.quantified(sequence, variable: variable.key, test: test, modifier: .any,
                                            construct: "contains(where:)"))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        .predicate(try translator.quantified(sequence, variable: variable.key, test: test, modifier: .all,
                                            construct: "allSatisfy(_:)"))
    }
}

extension PredicateExpressions.NilCoalesce: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        let wrapped = try translator.term(lhs)
        let fallback = try translator.term(rhs)
        switch (wrapped, fallback) {
        case (.path(let path), .value(let value, _)) where path.model == nil:
            return .coalesce(path, value)
        case (.optionalPredicate(let condition, let wrappedPath), .value(.bool(let otherwise), _)):
            let isNil = translator.compare(wrappedPath, .equalTo, .null)
            let isSet = translator.compare(wrappedPath, .notEqualTo, .null)
            return .predicate(otherwise ? .or(isNil, condition) : .and(isSet, condition))
        default:
            throw translator.unsupported("?? between \(PredicateTranslator.describe(wrapped)) and \(PredicateTranslator.describe(fallback))", hint: "write optionalProperty ?? value")
        }
    }
}

extension PredicateExpressions.OptionalFlatMap: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        guard case .path(let path) = try translator.term(wrapped), !path.isToMany else {
            throw translator.unsupported("optional chaining or if-let on a value that is not a stored property", hint: "unwrap an optional property or a to-one relationship")
        }
        var unwrapped = path
        unwrapped.valueType = Wrapped.self
        translator.bindings[variable.key] = unwrapped
        switch try translator.term(transform) {
        case .path(let result): return .path(result)
        case .predicate(let condition): return .optionalPredicate(condition, wrapped: path)
        case let other:
            throw translator.unsupported("optional chaining to \(PredicateTranslator.describe(other))", hint: "chain to a stored property or a condition")
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws(StrataError) -> PredicateTranslator.Term {
        try translator.term(inner)
    }
}

extension PredicateTranslator {
    /// `collection.contains(where: test)` (`.any`) or `collection.allSatisfy(test)` (`.all`)
    /// over a to-many relationship: a comparison on the elements (or, for `.any`, several
    /// joined by `||`), which the engine runs as `ANY` / `ALL`.
    mutating func quantified(_ sequence: any PredicateExpression, variable: PredicateExpressions.VariableID,
                             test: any PredicateExpression, modifier: ObjectPredicate.Modifier,
                             construct: String) throws(StrataError) -> ObjectPredicate {
        guard case .path(let collection) = try term(sequence), collection.isToMany, collection.modifier == .direct else {
            throw unsupported("\(construct) on a value that is not a to-many relationship", hint: "call it on a to-many relationship of the model")
        }
        var element = collection
        element.isToMany = false
        element.modifier = modifier
        bindings[variable] = element
        let condition = try self.condition(test)
        guard Self.isQuantifiedShape(condition, modifier: modifier, allowOr: modifier == .any) else {
            throw unsupported("\(construct) with a test that is not one comparison of the element's properties\(modifier == .any ? " (or several joined by ||)" : "")", hint: "write one \(construct) per condition and join them with && or ||")
        }
        return condition
    }

    private static func isQuantifiedShape(_ predicate: ObjectPredicate, modifier: ObjectPredicate.Modifier, allowOr: Bool) -> Bool {
        switch predicate {
        case .comparison(let comparison): return comparison.modifier == modifier
        case .or(let a, let b): return allowOr && isQuantifiedShape(a, modifier: modifier, allowOr: true) && isQuantifiedShape(b, modifier: modifier, allowOr: true)
        default: return false
        }
    }
}

/// Captured and literal values of a predicate, as stored values.
enum PredicateConstant {
    /// The stored form of `value`, or `nil` for a type Strata does not store.
    static func attributeValue(_ value: Any) -> AttributeValue? {
        if let optional = value as? any OptionalProbe {
            guard let wrapped = optional.wrappedValue else { return .null }
            return attributeValue(wrapped)
        }
        if let stored = value as? any PersistentAttributeValue { return stored.persistentValue }
        if let raw = value as? any RawRepresentable { return attributeValue(raw.rawValue) }
        if let model = value as? any PersistentModel { return model.persistentModelID.map { .int($0.primaryKey) } }
        return nil
    }

    /// The stored forms of a list of values (an array captured for `contains`), or `nil`
    /// when `value` is not such a list.
    static func list(_ value: Any) -> [AttributeValue]? {
        guard !(value is String), !(value is Data), let sequence = value as? any Sequence else { return nil }
        var values: [AttributeValue] = []
        for element in sequence {
            guard let stored = attributeValue(element) else { return nil }
            values.append(stored)
        }
        return values
    }
}

/// Lets a value in an `Any` be looked into when it is an optional.
protocol OptionalProbe {
    /// The wrapped value, or `nil`.
    var wrappedValue: Any? { get }
}

extension Optional: OptionalProbe {
    var wrappedValue: Any? { self.map { $0 as Any } }
}
