/// A predicate checked against a schema: every key resolved on its entity, every
/// comparison type-checked, every `MATCHES` pattern compiled. Only a bound predicate can be
/// evaluated, so a malformed query fails before any row is read.
///
/// Make one with ``ObjectPredicate/bound(to:in:)-(Entity,_)``.
///
/// For example:
/// ```swift
/// let bound = try ObjectPredicate(format: "age BETWEEN {100, 200}").bound(to: "Person", in: schema)
/// bound.evaluate(with: person)      // true or false
/// bound.rangeConstraints["age"]     // 100...200, for skipping chunks
/// ```
public struct BoundPredicate: Sendable, CustomStringConvertible {
    /// The predicate as written.
    public let predicate: ObjectPredicate
    /// The name of the entity whose objects it tests.
    public let entityName: String
    let root: BoundNode

    init(predicate: ObjectPredicate, entityName: String, root: BoundNode) {
        self.predicate = predicate
        self.entityName = entityName
        self.root = root
    }

    /// The predicate's format, such as `age >= 18`.
    public var description: String { predicate.predicateFormat }
}

/// A checked predicate tree.
indirect enum BoundNode: Sendable {
    case constant(Bool)
    case comparison(BoundComparison)
    case and(BoundNode, BoundNode)
    case or(BoundNode, BoundNode)
    case not(BoundNode)
}

/// A checked comparison.
struct BoundComparison: Sendable {
    var modifier: ObjectPredicate.Modifier
    var left: BoundOperand
    var op: ObjectPredicate.Operator
    var options: ObjectPredicate.Options
    var right: BoundOperand
    /// The compiled pattern of a `MATCHES` comparison.
    var regex: PredicateRegex?
}

/// One step of a resolved key path.
struct BoundStep: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case toOne
        case toMany
        case attribute
    }

    var name: String
    var kind: Kind
}

/// A resolved key path: relationship steps, then an attribute (or nothing, when the path
/// ends at a to-one relationship compared with `NIL`).
struct BoundPath: Sendable, Hashable {
    var steps: [BoundStep]

    /// Whether the path goes through a to-many relationship (so it has many values).
    var isMultiple: Bool { steps.contains { $0.kind == .toMany } }
    /// Whether the last step is an attribute.
    var endsAtAttribute: Bool { steps.last?.kind == .attribute }
}

/// A checked operand.
enum BoundOperand: Sendable {
    case constant(AttributeValue)
    case list([AttributeValue])
    case path(BoundPath)
    case aggregate(ObjectPredicate.Aggregate, collection: BoundPath, key: BoundPath?)
}
