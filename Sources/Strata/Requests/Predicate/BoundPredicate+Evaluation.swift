import Foundation

extension BoundPredicate {
    /// Whether `subject` satisfies the predicate, with Core Data's semantics: a comparison
    /// with nil is false except `== nil` and `!= nil` (so `x != 3` is true when `x` is nil);
    /// `ANY` is false and `ALL`/`NONE` true over no values; `BETWEEN` is inclusive;
    /// `@sum` of nothing is 0 and `@avg`/`@min`/`@max` of nothing are nil. A value of a kind
    /// other than the schema says (which a correct subject never returns) compares false.
    ///
    /// This is the reference evaluator: one object at a time, obviously correct, not fast.
    ///
    /// For example:
    /// ```swift
    /// let adults = try ObjectPredicate(format: "age >= 18").bound(to: "Person", in: schema)
    /// let matching = people.filter { adults.evaluate(with: $0) }
    /// ```
    /// - Complexity: O(size of the predicate × related objects visited).
    public func evaluate(with subject: some PredicateSubject) -> Bool {
        PredicateEvaluator.evaluate(root, subject)
    }
}

/// The reference evaluator.
enum PredicateEvaluator {
    static func evaluate(_ node: BoundNode, _ subject: any PredicateSubject) -> Bool {
        switch node {
        case .constant(let b): return b
        case .and(let l, let r): return evaluate(l, subject) && evaluate(r, subject)
        case .or(let l, let r): return evaluate(l, subject) || evaluate(r, subject)
        case .not(let inner): return !evaluate(inner, subject)
        case .comparison(let c): return evaluate(c, subject)
        }
    }

    private static func evaluate(_ c: BoundComparison, _ subject: any PredicateSubject) -> Bool {
        let right = operandValues(c.right, subject)
        func test(_ left: AttributeValue) -> Bool {
            compare(Fold.fold(left, c.options), c, right)
        }
        switch c.modifier {
        case .direct: return test(scalar(c.left, subject))
        case .any: return operandValues(c.left, subject).contains(where: test)
        case .all: return operandValues(c.left, subject).allSatisfy(test)
        case .none: return !operandValues(c.left, subject).contains(where: test)
        }
    }

    /// Compares one left value with the right operand's values (one value, or the list
    /// or collection for `IN`/`BETWEEN`).
    private static func compare(_ left: AttributeValue, _ c: BoundComparison, _ right: [AttributeValue]) -> Bool {
        switch c.op {
        case .in:
            if left.isNull { return false }
            return right.contains { !$0.isNull && ValueComparison.equal(left, Fold.fold($0, c.options)) }
        case .between:
            guard right.count == 2, !left.isNull,
                  let low = ValueComparison.order(right[0], left), let high = ValueComparison.order(left, right[1])
            else { return false }
            return low != .orderedDescending && high != .orderedDescending
        default:
            guard let r = right.first else { return false }
            return compare(left, c.op, Fold.fold(r, c.options), c.regex)
        }
    }

    static func compare(_ l: AttributeValue, _ op: ObjectPredicate.Operator, _ r: AttributeValue,
                        _ regex: PredicateRegex?) -> Bool {
        switch op {
        case .equalTo:
            if l.isNull || r.isNull { return l.isNull && r.isNull }
            return ValueComparison.equal(l, r)
        case .notEqualTo:
            return !compare(l, .equalTo, r, regex)
        case .lessThan:
            return ValueComparison.order(l, r) == .orderedAscending
        case .lessThanOrEqualTo:
            guard let o = ValueComparison.order(l, r) else { return false }
            return o != .orderedDescending
        case .greaterThan:
            return ValueComparison.order(l, r) == .orderedDescending
        case .greaterThanOrEqualTo:
            guard let o = ValueComparison.order(l, r) else { return false }
            return o != .orderedAscending
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let s) = l else { return false }
            if op == .matches { return regex?.matches(s) ?? false }
            guard case .string(let t) = r else { return false }
            switch op {
            case .beginsWith: return s.hasPrefix(t)
            case .endsWith: return s.hasSuffix(t)
            case .contains: return t.isEmpty || s.contains(t)
            default: return ValueComparison.like(s, t)
            }
        case .in, .between:
            return false
        }
    }

    /// The single value of a direct operand.
    private static func scalar(_ operand: BoundOperand, _ subject: any PredicateSubject) -> AttributeValue {
        operandValues(operand, subject).first ?? .null
    }

    /// Every value an operand has for `subject`: one for constants, scalars and aggregates;
    /// the list's values; or each value reached through to-many relationships.
    private static func operandValues(_ operand: BoundOperand, _ subject: any PredicateSubject) -> [AttributeValue] {
        switch operand {
        case .constant(let v): return [v]
        case .list(let values): return values
        case .path(let path):
            if !path.isMultiple { return [single(path.steps[...], subject)] }
            var values: [AttributeValue] = []
            collect(path.steps[...], subject, into: &values)
            return values
        case .aggregate(let function, let collection, let key):
            var objects: [any PredicateSubject] = []
            collectObjects(collection.steps[...], subject, into: &objects)
            if function == .count { return [.int(Int64(objects.count))] }
            var values: [AttributeValue] = []
            if let key { for object in objects { collect(key.steps[...], object, into: &values) } }
            return [aggregate(function, values.filter { !$0.isNull })]
        }
    }

    /// The value at the end of a path without to-many steps; `.null` past a missing to-one;
    /// for a path ending at a to-one relationship, `.bool(true)` when it is set.
    private static func single(_ steps: ArraySlice<BoundStep>, _ subject: any PredicateSubject) -> AttributeValue {
        guard let step = steps.first else { return .bool(true) }
        switch step.kind {
        case .attribute: return subject.value(forKey: step.name)
        case .toOne:
            guard let next = subject.toOne(forKey: step.name) else { return .null }
            return single(steps.dropFirst(), next)
        case .toMany: return .null
        }
    }

    private static func collect(_ steps: ArraySlice<BoundStep>, _ subject: any PredicateSubject,
                                into values: inout [AttributeValue]) {
        guard let step = steps.first else { values.append(.bool(true)); return }
        switch step.kind {
        case .attribute: values.append(subject.value(forKey: step.name))
        case .toOne:
            if let next = subject.toOne(forKey: step.name) {
                collect(steps.dropFirst(), next, into: &values)
            } else {
                values.append(.null)
            }
        case .toMany:
            for next in subject.toMany(forKey: step.name) { collect(steps.dropFirst(), next, into: &values) }
        }
    }

    private static func collectObjects(_ steps: ArraySlice<BoundStep>, _ subject: any PredicateSubject,
                                       into objects: inout [any PredicateSubject]) {
        guard let step = steps.first else { objects.append(subject); return }
        switch step.kind {
        case .attribute: return
        case .toOne:
            if let next = subject.toOne(forKey: step.name) { collectObjects(steps.dropFirst(), next, into: &objects) }
        case .toMany:
            for next in subject.toMany(forKey: step.name) { collectObjects(steps.dropFirst(), next, into: &objects) }
        }
    }

    /// `@sum` (integer while it fits, else double), `@avg`, `@min`, `@max` of non-nil values.
    static func aggregate(_ function: ObjectPredicate.Aggregate, _ values: [AttributeValue]) -> AttributeValue {
        switch function {
        case .count:
            return .int(Int64(values.count))
        case .sum:
            var intSum: Int64? = 0
            var doubleSum = 0.0
            for v in values {
                switch v {
                case .int(let i):
                    doubleSum += Double(i)
                    if let s = intSum {
                        let (r, overflow) = s.addingReportingOverflow(i)
                        intSum = overflow ? nil : r
                    }
                case .double(let d):
                    doubleSum += d
                    intSum = nil
                default: break
                }
            }
            return intSum.map(AttributeValue.int) ?? .double(doubleSum)
        case .avg:
            let numbers = values.compactMap { v -> Double? in
                if case .int(let i) = v { return Double(i) }
                if case .double(let d) = v { return d }
                return nil
            }
            return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        case .min, .max:
            let wanted: ComparisonResult = function == .min ? .orderedAscending : .orderedDescending
            var best: AttributeValue?
            for v in values {
                guard let current = best else { best = v; continue }
                if ValueComparison.order(v, current) == wanted { best = v }
            }
            return best ?? .null
        }
    }
}
