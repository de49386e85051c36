/// One broken validation rule of one object: which object, which key, the offending value
/// and the rule.
///
/// The ``description`` names the entity, object, key and rule but never the value (it may
/// be personal data); the value is in ``value`` for code that decides to show it.
public struct ValidationViolation: Sendable, Hashable, CustomStringConvertible {
    /// What was broken: the attribute or relationship being required, or a rule.
    public enum Rule: Sendable, Hashable, CustomStringConvertible {
        /// A non-optional attribute is `nil`, or a non-optional relationship is empty.
        case required
        /// A validation rule of the attribute.
        case rule(ValidationRule)

        /// `required` or the rule's own description.
        public var description: String {
            switch self {
            case .required: return "required"
            case .rule(let rule): return rule.description
            }
        }
    }

    /// The entity of the object.
    public var entity: String
    /// The caller's description of the object, typically its object ID URI.
    public var object: String
    /// The attribute or relationship name.
    public var key: String
    /// The offending value: the attribute's value, or for a relationship the number of
    /// related objects as `.int`.
    public var value: AttributeValue
    /// The rule that the value breaks.
    public var rule: Rule

    /// Creates a violation.
    public init(entity: String, object: String, key: String, value: AttributeValue, rule: Rule) {
        self.entity = entity
        self.object = object
        self.key = key
        self.value = value
        self.rule = rule
    }

    /// For example `TodoItem strata://…/TodoItem/7: 'name' must have a length (in characters)
    /// in the range 1...200`. Never includes the value.
    public var description: String {
        let subject = "\(entity) \(object): '\(key)'"
        switch rule {
        case .required:
            if value.isNull { return "\(subject) is required but is nil" }
            return "\(subject) is required but has no related object"
        case .rule(let rule):
            let unit: String
            if case .binary = value { unit = "bytes" } else { unit = "characters" }
            return "\(subject) must \(rule.requirement(lengthUnit: unit))"
        }
    }
}
