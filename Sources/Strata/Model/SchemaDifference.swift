/// One way a schema differs from another, as listed by ``Schema/differences(from:)``.
///
/// Each case names the entity (and property) involved; the `description` is a sentence for
/// people. ``requiresMigration`` tells apart changes to what is stored (entities, properties,
/// types, optionality, relationship shape) from changes to behaviour only (defaults,
/// validation rules, delete rules).
public enum SchemaDifference: Sendable, Hashable, CustomStringConvertible {
    /// The new schema has an entity the old one lacks.
    case entityAdded(String)
    /// The old schema has an entity the new one lacks.
    case entityRemoved(String)
    /// The entity gained an attribute.
    case attributeAdded(entity: String, attribute: String)
    /// The entity lost an attribute.
    case attributeRemoved(entity: String, attribute: String)
    /// The attribute's type changed.
    case attributeTypeChanged(entity: String, attribute: String, from: AttributeType, to: AttributeType)
    /// The attribute became optional (`isOptional: true`) or required.
    case attributeOptionalityChanged(entity: String, attribute: String, isOptional: Bool)
    /// The attribute's default value changed.
    case attributeDefaultChanged(entity: String, attribute: String)
    /// The attribute's data validation rules changed (custom rules are not compared).
    case attributeValidationChanged(entity: String, attribute: String)
    /// The entity gained a relationship.
    case relationshipAdded(entity: String, relationship: String)
    /// The entity lost a relationship.
    case relationshipRemoved(entity: String, relationship: String)
    /// The relationship points to another entity.
    case relationshipDestinationChanged(entity: String, relationship: String, from: String, to: String)
    /// The relationship has another inverse.
    case relationshipInverseChanged(entity: String, relationship: String, from: String, to: String)
    /// The relationship became to-many (`isToMany: true`) or to-one.
    case relationshipCardinalityChanged(entity: String, relationship: String, isToMany: Bool)
    /// The relationship became optional (`isOptional: true`) or required.
    case relationshipOptionalityChanged(entity: String, relationship: String, isOptional: Bool)
    /// The relationship's delete rule changed.
    case relationshipDeleteRuleChanged(entity: String, relationship: String, from: DeleteRule, to: DeleteRule)

    /// The entity involved.
    public var entity: String {
        switch self {
        case .entityAdded(let entity), .entityRemoved(let entity),
             .attributeAdded(let entity, _), .attributeRemoved(let entity, _),
             .attributeTypeChanged(let entity, _, _, _), .attributeOptionalityChanged(let entity, _, _),
             .attributeDefaultChanged(let entity, _), .attributeValidationChanged(let entity, _),
             .relationshipAdded(let entity, _), .relationshipRemoved(let entity, _),
             .relationshipDestinationChanged(let entity, _, _, _),
             .relationshipInverseChanged(let entity, _, _, _),
             .relationshipCardinalityChanged(let entity, _, _),
             .relationshipOptionalityChanged(let entity, _, _),
             .relationshipDeleteRuleChanged(let entity, _, _, _):
            return entity
        }
    }

    /// Whether the change affects stored data (so opening an existing store needs a
    /// migration), rather than only defaults, validation or delete behaviour.
    public var requiresMigration: Bool {
        switch self {
        case .attributeDefaultChanged, .attributeValidationChanged, .relationshipDeleteRuleChanged:
            return false
        default:
            return true
        }
    }

    /// A sentence such as `attribute 'Person.age' changed type from int64 to int32`.
    public var description: String {
        switch self {
        case .entityAdded(let entity):
            return "entity '\(entity)' was added"
        case .entityRemoved(let entity):
            return "entity '\(entity)' was removed"
        case .attributeAdded(let entity, let attribute):
            return "attribute '\(entity).\(attribute)' was added"
        case .attributeRemoved(let entity, let attribute):
            return "attribute '\(entity).\(attribute)' was removed"
        case .attributeTypeChanged(let entity, let attribute, let from, let to):
            return "attribute '\(entity).\(attribute)' changed type from \(from.rawValue) to \(to.rawValue)"
        case .attributeOptionalityChanged(let entity, let attribute, let isOptional):
            return "attribute '\(entity).\(attribute)' became \(isOptional ? "optional" : "required")"
        case .attributeDefaultChanged(let entity, let attribute):
            return "attribute '\(entity).\(attribute)' changed its default value"
        case .attributeValidationChanged(let entity, let attribute):
            return "attribute '\(entity).\(attribute)' changed its validation rules"
        case .relationshipAdded(let entity, let relationship):
            return "relationship '\(entity).\(relationship)' was added"
        case .relationshipRemoved(let entity, let relationship):
            return "relationship '\(entity).\(relationship)' was removed"
        case .relationshipDestinationChanged(let entity, let relationship, let from, let to):
            return "relationship '\(entity).\(relationship)' now points to \(to) instead of \(from)"
        case .relationshipInverseChanged(let entity, let relationship, let from, let to):
            return "relationship '\(entity).\(relationship)' changed its inverse from '\(from)' to '\(to)'"
        case .relationshipCardinalityChanged(let entity, let relationship, let isToMany):
            return "relationship '\(entity).\(relationship)' became \(isToMany ? "to-many" : "to-one")"
        case .relationshipOptionalityChanged(let entity, let relationship, let isOptional):
            return "relationship '\(entity).\(relationship)' became \(isOptional ? "optional" : "required")"
        case .relationshipDeleteRuleChanged(let entity, let relationship, let from, let to):
            return "relationship '\(entity).\(relationship)' changed its delete rule from \(from.rawValue) to \(to.rawValue)"
        }
    }
}
