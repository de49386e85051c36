/// An object a ``BoundPredicate`` can be evaluated against: it answers attribute values
/// and follows relationships by name. Managed objects, snapshot rows and test doubles
/// adopt it.
///
/// For example:
/// ```swift
/// struct Row: PredicateSubject {
///     var values: [String: AttributeValue]
///     func value(forKey key: String) -> AttributeValue { values[key] ?? .null }
///     func toOne(forKey key: String) -> (any PredicateSubject)? { nil }
///     func toMany(forKey key: String) -> [any PredicateSubject] { [] }
/// }
/// ```
public protocol PredicateSubject {
    /// The value of the attribute `key` (`.null` when it has none).
    func value(forKey key: String) -> AttributeValue
    /// The object the to-one relationship `key` points to, or `nil`.
    func toOne(forKey key: String) -> (any PredicateSubject)?
    /// The objects of the to-many relationship `key` (in any order).
    func toMany(forKey key: String) -> [any PredicateSubject]
}
