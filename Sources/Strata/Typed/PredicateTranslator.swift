import Foundation

/// Translates Foundation's `Predicate` (what `#Predicate` builds) into an ``ObjectPredicate``
/// by walking its expression tree, so a typed fetch runs on the engine's column scans.
///
/// Each supported expression type conforms to ``TranslatableExpression`` (see
/// `PredicateExpressions+Translation.swift`); anything else is refused with
/// `.unsupportedPredicate` naming it, never evaluated per object.
struct PredicateTranslator {
    /// A key path from the fetched object (or from an element of a to-many relationship).
    struct Path {
        /// Property names from the fetched entity.
        var components: [String]
        /// `.any` / `.all` inside `contains(where:)` / `allSatisfy`, else `.direct`.
        var modifier: ObjectPredicate.Modifier
        /// The model class the path reaches, when it reaches an object.
        var model: (any PersistentModel.Type)?
        /// Whether it reaches a to-many relationship (a collection of `model`).
        var isToMany: Bool
        /// The Swift type of its value.
        var valueType: Any.Type
    }

    /// What an expression translates to.
    enum Term {
        /// A Boolean condition.
        case predicate(ObjectPredicate)
        /// `wrapped.flatMap { condition }`: the condition when `wrapped` is not nil, else nil.
        case optionalPredicate(ObjectPredicate, wrapped: Path)
        /// A key path's value.
        case path(Path)
        /// `path ?? fallback`.
        case coalesce(Path, AttributeValue)
        /// A constant (or captured) value.
        case value(AttributeValue, Any.Type)
        /// A constant list (for `contains`, which is `IN`).
        case list([AttributeValue])
        /// The number of objects of a to-many relationship.
        case count(Path)
    }

    /// What each closure parameter stands for.
    var bindings: [PredicateExpressions.VariableID: Path] = [:]
    /// The fetched entity's name, for messages.
    let entity: String

    /// The engine predicate for `predicate`.
    ///
    /// - Throws: `.unsupportedPredicate` naming the construct the engine cannot run.
    static func translate<Model: PersistentModel>(_ predicate: Predicate<Model>) throws(StrataError) -> ObjectPredicate {
        var translator = PredicateTranslator(entity: Model.entityName)
        translator.bindings[predicate.variable.key] = Path(components: [], modifier: .direct, model: Model.self,
                                                           isToMany: false, valueType: Model.self)
        return try translator.condition(predicate.expression)
    }

    // MARK: Terms

    /// The term of any expression.
    mutating func term(_ expression: any PredicateExpression) throws(StrataError) -> Term {
        guard let translatable = expression as? any TranslatableExpression else {
            throw unsupported(Self.constructName(expression), hint: "compute it outside the predicate and capture the result, or use a comparison, &&, ||, !, ??, contains, starts(with:), contains(where:) or count")
        }
        return try translatable.translate(&self)
    }

    /// The Boolean condition of an expression (a `Bool` key path becomes `path == true`).
    mutating func condition(_ expression: any PredicateExpression) throws(StrataError) -> ObjectPredicate {
        switch try term(expression) {
        case .predicate(let predicate): return predicate
        case .path(let path) where path.valueType == Bool.self:
            return compare(path, .equalTo, .bool(true))
        case .value(.bool(let value), _): return value ? .truePredicate : .falsePredicate
        default: throw unsupported("a non-Boolean expression used as a condition", hint: "compare it with a value")
        }
    }

    /// The term of a key path `keyPath` applied to `root`.
    mutating func keyPath(root: any PredicateExpression, keyPath: AnyKeyPath, rootType: Any.Type, output: Any.Type) throws(StrataError) -> Term {
        guard case .path(let base) = try term(root) else {
            throw unsupported("a key path on a value that is not a stored property (\(keyPath))", hint: "query stored properties of the model and its to-one relationships")
        }
        if base.isToMany {
            guard (rootType as? any CountProbe.Type)?.countKeyPath == keyPath else {
                throw unsupported("\(keyPath) on the to-many relationship \(base.components.joined(separator: "."))", hint: "use count or contains(where:)")
            }
            return .count(base)
        }
        guard let model = base.model else {
            throw unsupported("\(keyPath) on \(base.valueType) (\(base.components.joined(separator: ".")))", hint: "the engine compares whole values; String.count and other computed values of a value are not stored")
        }
        guard let name = model._$propertyName(for: keyPath),
              let property = model._$layout.properties.first(where: { $0.name == name }) else {
            throw unsupported("\(keyPath), which is not a persisted property of \(model.entityName)", hint: "@Transient and computed properties are not stored, so the store cannot test them")
        }
        var path = base
        path.components.append(name)
        path.valueType = output
        switch property.role {
        case .attribute: path.model = nil
        case .toOne: path.model = property.destinationType
        case .toMany: path.model = property.destinationType; path.isToMany = true
        }
        return .path(path)
    }

    // MARK: Comparisons

    /// `lhs op rhs`.
    mutating func comparison(_ lhs: any PredicateExpression, _ op: ObjectPredicate.Operator,
                             _ rhs: any PredicateExpression) throws(StrataError) -> ObjectPredicate {
        let left = try term(lhs)
        let right = try term(rhs)
        switch (left, right) {
        case (.path(let path), .value(let value, _)):
            return try checked(path, op, value)
        case (.value(let value, _), .path(let path)):
            return try checked(path, op.mirrored, value)
        case (.path(let a), .path(let b)):
            guard a.modifier == .direct, b.modifier == .direct, a.model == nil, b.model == nil else {
                throw unsupported("a comparison of two relationships", hint: "compare their stored properties")
            }
            try checkOrdering(a, op)
            return .comparison(.init(.keyPath(a.components), op, .keyPath(b.components)))
        case (.coalesce(let path, let fallback), .value(let value, _)):
            return try coalesced(path, fallback, op, value)
        case (.value(let value, _), .coalesce(let path, let fallback)):
            return try coalesced(path, fallback, op.mirrored, value)
        case (.count(let path), .value(let value, _)):
            return .comparison(.init(.aggregate(.count, collection: path.components, key: []), op, .constant(value)))
        case (.value(let value, _), .count(let path)):
            return .comparison(.init(.aggregate(.count, collection: path.components, key: []), op.mirrored, .constant(value)))
        case (.value(let a, _), .value(let b, _)):
            return PredicateEvaluator.compare(a, op, b, PredicateRegex?.none) ? .truePredicate : .falsePredicate
        default:
            throw unsupported("a comparison of \(Self.describe(left)) with \(Self.describe(right))", hint: "compare a stored property with a value")
        }
    }

    /// `path op value`, refusing what the engine would answer differently from Swift.
    private func checked(_ path: Path, _ op: ObjectPredicate.Operator, _ value: AttributeValue) throws(StrataError) -> ObjectPredicate {
        if path.model != nil {
            guard value.isNull, op == .equalTo || op == .notEqualTo, !path.isToMany else {
                throw unsupported("a comparison of the relationship \(path.components.joined(separator: ".")) with a value", hint: "compare one of the related object's properties, or test it against nil")
            }
        }
        try checkOrdering(path, op)
        return compare(path, op, value)
    }

    private func checkOrdering(_ path: Path, _ op: ObjectPredicate.Operator) throws(StrataError) {
        if op.isOrdering, path.valueType == Decimal.self || path.valueType == Decimal?.self {
            throw unsupported("an ordering comparison of the Decimal property \(path.components.joined(separator: "."))", hint: "Decimal is stored as exact text, whose order is not numeric; store a Double or an integer number of cents to compare")
        }
    }

    func compare(_ path: Path, _ op: ObjectPredicate.Operator, _ value: AttributeValue) -> ObjectPredicate {
        .comparison(.init(.keyPath(path.components), op, .constant(value), modifier: path.modifier))
    }

    /// `(path ?? fallback) op value`: where `path` is nil, the fallback decides.
    private func coalesced(_ path: Path, _ fallback: AttributeValue, _ op: ObjectPredicate.Operator,
                           _ value: AttributeValue) throws(StrataError) -> ObjectPredicate {
        try checkOrdering(path, op)
        let present = ObjectPredicate.and(compare(path, .notEqualTo, .null), compare(path, op, value))
        guard PredicateEvaluator.compare(fallback, op, value, PredicateRegex?.none) else { return present }
        return .or(present, compare(path, .equalTo, .null))
    }

    /// A string test (`contains`, `starts(with:)`) of `base` with `other`.
    mutating func stringTest(_ base: any PredicateExpression, _ op: ObjectPredicate.Operator,
                             _ other: any PredicateExpression, construct: String) throws(StrataError) -> ObjectPredicate {
        let left = try term(base)
        let right = try term(other)
        guard case .path(let path) = left, path.valueType == String.self, case .value(let value, _) = right else {
            throw unsupported("\(construct) on \(Self.describe(left)) with \(Self.describe(right))", hint: "call it on a non-optional String property with a String value")
        }
        return compare(path, op, value)
    }

    // MARK: Errors

    func unsupported(_ construct: String, hint: String) -> StrataError {
        StrataError(.unsupportedPredicate, "#Predicate<\(entity)> uses \(construct), which Strata cannot run in the store; \(hint).", entity: entity)
    }

    /// The name of an expression's type without its generic arguments (`Arithmetic`).
    static func constructName(_ expression: any PredicateExpression) -> String {
        let full = String(describing: type(of: expression))
        return String(full.prefix { $0 != "<" })
    }

    static func describe(_ term: Term) -> String {
        switch term {
        case .predicate, .optionalPredicate: return "a condition"
        case .path(let path): return path.components.isEmpty ? "the object itself" : "the property \(path.components.joined(separator: "."))"
        case .coalesce(let path, _): return "\(path.components.joined(separator: ".")) ?? a value"
        case .value(_, let type): return "a \(type) value"
        case .list: return "a list"
        case .count(let path): return "\(path.components.joined(separator: ".")).count"
        }
    }
}

/// Finds `count` among an array's key paths.
protocol CountProbe {
    /// `\Self.count`.
    static var countKeyPath: AnyKeyPath { get }
}

extension Array: CountProbe {
    static var countKeyPath: AnyKeyPath { \Self.count }
}

extension ObjectPredicate.Operator {
    /// The operator with its sides swapped (`a < b` is `b > a`).
    var mirrored: Self {
        switch self {
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        default: return self
        }
    }
}
