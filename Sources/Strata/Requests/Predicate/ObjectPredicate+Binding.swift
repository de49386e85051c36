extension ObjectPredicate {
    /// Checks this predicate against `entity` in `schema` and returns the form that can be
    /// evaluated.
    ///
    /// Rules: each key must be an attribute or relationship of the entity reached so far
    /// (to-one relationships are followed to their destination); a key path through a
    /// to-many relationship needs `ANY`/`ALL`/`NONE` or an aggregate (or stands on the
    /// right of `IN`); operands must have comparable types (integers and doubles compare
    /// numerically; strings with strings; dates with dates; booleans, UUIDs and data only
    /// for equality); `[c]`/`[d]` need strings; `== nil` needs a key that can be nil
    /// (an optional attribute or a path through an optional to-one), while `!= nil` is
    /// always allowed; every `$variable` must have been substituted.
    ///
    /// For example:
    /// ```swift
    /// let bound = try ObjectPredicate(format: "team.name == 'Red'").bound(to: person, in: schema)
    /// ```
    /// - Throws: ``StrataError`` `.unknownKey` (naming the entity, the key and the nearest
    ///   valid key), `.unknownEntity`, `.typeMismatch`, `.predicateArgument` (an
    ///   unsubstituted variable) or `.predicateSyntax` (an invalid `MATCHES` pattern, a
    ///   `BETWEEN` list without two elements).
    /// - Complexity: O(*n*·*k*) for *n* nodes and entities of *k* properties.
    public func bound(to entity: Entity, in schema: Schema) throws(StrataError) -> BoundPredicate {
        let binder = PredicateBinder(schema: schema, root: entity, predicate: self)
        return BoundPredicate(predicate: self, entityName: entity.name, root: try binder.bind(self))
    }

    /// Looks up the entity named `entityName` and binds to it; see ``bound(to:in:)-(Entity,_)``.
    ///
    /// - Throws: ``StrataError`` `.unknownEntity` when the schema has no such entity, and
    ///   every error of ``bound(to:in:)-(Entity,_)``.
    public func bound(to entityName: String, in schema: Schema) throws(StrataError) -> BoundPredicate {
        guard let entity = schema.entity(named: entityName) else {
            var message = "The schema has no entity '\(entityName)'"
            if let near = Schema.nearestName(to: entityName, among: schema.entities.map(\.name)) {
                message += "; did you mean '\(near)'?"
            }
            throw StrataError(.unknownEntity, message, entity: entityName)
        }
        return try bound(to: entity, in: schema)
    }
}

/// What binding knows about an operand's values.
struct OperandInfo {
    enum Kind: String {
        case number, bool, string, date, uuid, binary
        /// A to-one relationship (only compared with `NIL`).
        case object
    }

    /// `nil` for the `NIL` constant.
    var kind: Kind?
    /// The type of the attribute, for messages.
    var typeName: String
    var canBeNil: Bool
    var isMultiple = false
    var isList = false
    /// How the operand reads in messages: a key path, or "a string constant" (never the value).
    var display: String

    var isNilConstant: Bool { kind == nil && !isList }
    /// Whether the operand is a constant (its ``display`` then names its kind already).
    var isConstant = false

    /// How the operand reads with its type: "age (int64)", or "a string constant".
    var described: String { isConstant || isList ? display : "\(display) (\(typeName))" }

    /// "a" or "an", for `word`.
    static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    static func kind(of type: AttributeType) -> Kind {
        switch type {
        case .bool: return .bool
        case .int16, .int32, .int64, .double: return .number
        case .string: return .string
        case .date: return .date
        case .uuid: return .uuid
        case .binary: return .binary
        }
    }

    static func kind(of value: AttributeValue) -> Kind? {
        switch value {
        case .null: return nil
        case .bool: return .bool
        case .int, .double: return .number
        case .string: return .string
        case .date: return .date
        case .uuid: return .uuid
        case .binary: return .binary
        }
    }
}

/// Resolves and type-checks a predicate against an entity.
struct PredicateBinder {
    let schema: Schema
    let root: Entity
    let predicate: ObjectPredicate

    func bind(_ p: ObjectPredicate) throws(StrataError) -> BoundNode {
        switch p {
        case .truePredicate: return .constant(true)
        case .falsePredicate: return .constant(false)
        case .and(let l, let r): return .and(try bind(l), try bind(r))
        case .or(let l, let r): return .or(try bind(l), try bind(r))
        case .not(let inner): return .not(try bind(inner))
        case .comparison(let c): return .comparison(try bind(c))
        }
    }

    private func mismatch(_ c: ObjectPredicate.Comparison, _ reason: String) -> StrataError {
        StrataError(.typeMismatch, "In '\(PredicatePrinter.print(shape(c)))' on \(root.name): \(reason).",
                    entity: root.name, key: keyName(c.left) ?? keyName(c.right))
    }

    /// The comparison with constants replaced by their kinds, so messages never show values.
    private func shape(_ c: ObjectPredicate.Comparison) -> ObjectPredicate.Comparison {
        func hide(_ e: ObjectPredicate.Expression) -> ObjectPredicate.Expression {
            switch e {
            case .constant(let v): return v.isNull ? e : .keyPath(["<\(v.kindName)>"])
            case .list(let items): return .list(items.map(hide))
            default: return e
            }
        }
        var copy = c
        copy.left = hide(c.left)
        copy.right = hide(c.right)
        return copy
    }

    private func keyName(_ e: ObjectPredicate.Expression) -> String? {
        switch e {
        case .keyPath(let k): return k.joined(separator: ".")
        case .aggregate(_, let collection, _): return collection.joined(separator: ".")
        default: return nil
        }
    }

    private func bind(_ c: ObjectPredicate.Comparison) throws(StrataError) -> BoundComparison {
        let (left, l) = try operand(c.left, c)
        let (right, r) = try operand(c.right, c)
        let op = c.op

        // Shape: lists, quantifiers, to-many paths.
        if l.isList { throw mismatch(c, "a {…} list can only stand on the right of IN or BETWEEN") }
        if r.isList, op != .in, op != .between {
            throw mismatch(c, "a {…} list can only stand on the right of IN or BETWEEN")
        }
        if c.modifier == .direct {
            if l.isMultiple {
                throw mismatch(c, "\(l.display) goes through a to-many relationship; use ANY, ALL or NONE, "
                               + "or an aggregate such as @count")
            }
        } else if !l.isMultiple {
            throw mismatch(c, "\(c.modifier.rawValue.uppercased()) needs a key path through a to-many relationship, "
                           + "and \(l.display) is not one")
        }
        if r.isMultiple, op != .in {
            throw mismatch(c, "\(r.display) goes through a to-many relationship; only IN accepts one on its right")
        }
        if l.kind == .object || r.kind == .object {
            guard op == .equalTo || op == .notEqualTo, l.isNilConstant || r.isNilConstant else {
                throw mismatch(c, "a to-one relationship can only be compared with NIL (== nil or != nil)")
            }
        }

        // Options need strings.
        if !c.options.isEmpty, l.kind != .string || (r.kind != .string && !(r.isList && op == .in)) {
            throw mismatch(c, "[c] and [d] apply only to strings, and \(l.described) is not one")
        }

        try checkTypes(c, l, r)

        var regex: PredicateRegex?
        if op == .matches {
            guard case .constant(.string(let pattern)) = right else {
                throw mismatch(c, "MATCHES needs a constant pattern on its right")
            }
            do {
                regex = try PredicateRegex.compile(
                    c.options.contains(.diacriticInsensitive) ? Fold.fold(pattern, c.options) : pattern,
                    caseInsensitive: c.options.contains(.caseInsensitive))
            } catch {
                throw StrataError(.predicateSyntax,
                                  "The MATCHES pattern compared with \(l.display) on \(root.name) is not a valid regular expression.",
                                  entity: root.name, key: keyName(c.left))
            }
        }
        var bound = BoundComparison(modifier: c.modifier, left: left, op: op, options: c.options,
                                    right: right, regex: regex)
        // Fold constant strings once, so evaluation folds only the object's side.
        if !c.options.isEmpty, op != .matches {
            bound.right = Fold.fold(right, c.options)
        }
        return bound
    }

    private func checkTypes(_ c: ObjectPredicate.Comparison, _ l: OperandInfo, _ r: OperandInfo) throws(StrataError) {
        let op = c.op
        func requireSame(_ a: OperandInfo, _ b: OperandInfo) throws(StrataError) {
            guard let ak = a.kind, let bk = b.kind, ak != bk else { return }
            throw mismatch(c, "\(a.described) cannot be compared with \(b.described)")
        }
        switch op {
        case .equalTo, .notEqualTo:
            if l.isNilConstant || r.isNilConstant {
                let other = l.isNilConstant ? r : l
                if op == .equalTo, !other.isNilConstant, !other.canBeNil {
                    throw mismatch(c, "\(other.display) is never nil (it is not optional), so '== nil' is always false")
                }
                return
            }
            try requireSame(l, r)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between:
            if l.isNilConstant || r.isNilConstant {
                throw mismatch(c, "nil has no order; use == nil or != nil")
            }
            for side in [l, r] {
                if let k = side.kind, k != .number, k != .string, k != .date {
                    throw mismatch(c, "\(side.described) has no order")
                }
            }
            try requireSame(l, r)
        case .beginsWith, .endsWith, .contains, .like, .matches:
            for side in [l, r] where side.kind != .string {
                throw mismatch(c, "\(op.rawValue.uppercased()) compares strings, and \(side.described) is not one")
            }
        case .in:
            guard r.isList || r.isMultiple else {
                throw mismatch(c, "IN needs a {…} list, a list argument or a to-many key path on its right")
            }
            if l.isNilConstant { throw mismatch(c, "NIL cannot be looked up IN a list") }
            try requireSame(l, r)
        }
    }

    /// Binds an expression, returning what binding knows of it.
    private func operand(_ e: ObjectPredicate.Expression, _ c: ObjectPredicate.Comparison) throws(StrataError) -> (BoundOperand, OperandInfo) {
        switch e {
        case .constant(let v):
            let kind = OperandInfo.kind(of: v)
            return (.constant(v), OperandInfo(kind: kind, typeName: v.kindName, canBeNil: v.isNull,
                                               display: v.isNull ? "NIL" : "\(OperandInfo.article(v.kindName)) \(v.kindName) constant",
                                               isConstant: true))
        case .variable(let name):
            throw StrataError(.predicateArgument,
                              "The predicate still contains the variable $\(name); call substituting(_:) before binding it.",
                              entity: root.name, key: name)
        case .list(let items):
            var values: [AttributeValue] = []
            var kinds = Set<OperandInfo.Kind>()
            for item in items {
                guard case .constant(let v) = item else {
                    if case .variable = item { _ = try operand(item, c) }
                    throw mismatch(c, "a {…} list may only hold constants")
                }
                if let k = OperandInfo.kind(of: v) { kinds.insert(k) }
                values.append(v)
            }
            if c.op == .between, values.count != 2 || values.contains(where: \.isNull) {
                throw StrataError(.predicateSyntax,
                                  "BETWEEN needs a list of two values {low, high} on \(root.name), not nil and not \(values.count) values.",
                                  entity: root.name, key: keyName(c.left))
            }
            guard kinds.count <= 1 else { throw mismatch(c, "the list mixes values of different types") }
            let kind = kinds.first
            return (.list(values), OperandInfo(kind: kind, typeName: "a list of \(kind?.rawValue ?? "nil")s",
                                                canBeNil: false, isList: true, display: "the list"))
        case .keyPath(let components):
            let (path, type, canBeNil) = try resolve(components, from: root)
            let display = components.joined(separator: ".")
            guard let last = path.steps.last else { throw unknownKey("", on: root) }
            if last.kind == .toMany {
                throw mismatch(c, "\(display) is a to-many relationship; compare \(display).@count, "
                               + "or a key of its objects with ANY, ALL or NONE")
            }
            let kind: OperandInfo.Kind = type.map(OperandInfo.kind(of:)) ?? .object
            return (.path(path), OperandInfo(kind: kind, typeName: type?.rawValue ?? "a relationship",
                                             canBeNil: canBeNil, isMultiple: path.isMultiple, display: display))
        case .aggregate(let function, let collectionPath, let keyPath):
            let display = PredicatePrinter.print(e)
            let (collection, _, _) = try resolve(collectionPath, from: root)
            guard collection.steps.last?.kind == .toMany || (collection.isMultiple && collection.steps.last?.kind == .toOne) else {
                throw mismatch(c, "@\(function.rawValue) needs a to-many relationship before it, and "
                               + "\(collectionPath.joined(separator: ".")) is not one")
            }
            if function == .count {
                return (.aggregate(.count, collection: collection, key: nil),
                        OperandInfo(kind: .number, typeName: "int64", canBeNil: false, display: display))
            }
            let destination = try entity(at: collection)
            let (key, type, _) = try resolve(keyPath, from: destination)
            guard let type else {
                throw mismatch(c, "@\(function.rawValue) needs an attribute after it, and \(keyPath.joined(separator: ".")) is a relationship")
            }
            let kind = OperandInfo.kind(of: type)
            switch function {
            case .sum, .avg:
                guard kind == .number else { throw mismatch(c, "@\(function.rawValue) needs a numeric key, and \(display) is \(type.rawValue)") }
            case .min, .max:
                guard kind == .number || kind == .string || kind == .date else {
                    throw mismatch(c, "@\(function.rawValue) needs a number, string or date, and \(display) is \(type.rawValue)")
                }
            case .count: break
            }
            return (.aggregate(function, collection: collection, key: key),
                    OperandInfo(kind: kind, typeName: function == .avg ? "double" : type.rawValue,
                                canBeNil: function != .sum, display: display))
        }
    }

    /// Follows `components` from `entity`: the steps, the final attribute's type (`nil` when
    /// the path ends at a relationship) and whether the result can be nil.
    private func resolve(_ components: [String], from start: Entity) throws(StrataError) -> (BoundPath, AttributeType?, Bool) {
        var entity = start
        var steps: [BoundStep] = []
        var canBeNil = false
        for (i, name) in components.enumerated() {
            if let attribute = entity.attribute(named: name) {
                steps.append(BoundStep(name: name, kind: .attribute))
                guard i == components.count - 1 else {
                    throw StrataError(.unknownKey,
                                      "\(entity.name).\(name) is an attribute, so '\(components[i + 1])' cannot follow it in "
                                      + "'\(components.joined(separator: "."))'.", entity: entity.name, key: components[i + 1])
                }
                return (BoundPath(steps: steps), attribute.type, canBeNil || attribute.isOptional)
            }
            guard let relationship = entity.relationship(named: name) else { throw unknownKey(name, on: entity) }
            guard let destination = schema.entity(named: relationship.destination) else {
                throw StrataError(.unknownEntity,
                                  "\(entity.name).\(name) points to '\(relationship.destination)', which the schema does not define.",
                                  entity: relationship.destination, key: name)
            }
            steps.append(BoundStep(name: name, kind: relationship.isToMany ? .toMany : .toOne))
            if !relationship.isToMany, relationship.isOptional { canBeNil = true }
            entity = destination
        }
        return (BoundPath(steps: steps), nil, canBeNil || steps.last?.kind == .toOne)
    }

    /// The entity a relationship path ends at.
    private func entity(at path: BoundPath) throws(StrataError) -> Entity {
        var entity = root
        for step in path.steps {
            guard let relationship = entity.relationship(named: step.name),
                  let next = schema.entity(named: relationship.destination) else { throw unknownKey(step.name, on: entity) }
            entity = next
        }
        return entity
    }

    private func unknownKey(_ key: String, on entity: Entity) -> StrataError {
        var message = "\(entity.name) has no attribute or relationship '\(key)'"
        if let near = PredicateBinder.nearest(to: key, among: entity.propertyNames) {
            message += "; did you mean '\(near)'?"
        } else if !entity.propertyNames.isEmpty {
            message += "; its keys are \(entity.propertyNames.joined(separator: ", "))"
        }
        // "did you mean 'age'?" ends the sentence already.
        return StrataError(.unknownKey, message.hasSuffix("?") ? message : message + ".", entity: entity.name, key: key)
    }
}

extension PredicateBinder {
    /// The candidate with the smallest edit distance to `name` (ignoring case), when it is
    /// within half the name's length (at least 2): the "did you mean" of an unknown key.
    static func nearest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let d = editDistance(target, Array(candidate.lowercased()))
            if d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, target.count / 2) else { return nil }
        return best.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions of characters.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let next = Swift.min(row[j + 1] + 1, row[j] + 1, diagonal + (x == y ? 0 : 1))
                diagonal = row[j + 1]
                row[j + 1] = next
            }
        }
        return row[b.count]
    }
}
