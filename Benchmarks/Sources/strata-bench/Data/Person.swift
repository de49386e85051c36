/// A person, as both engines store it: the `person` table for SQLite, the `Person` entity
/// for Strata.
struct Person: Sendable, Equatable {
    /// The primary key, 1...scale in generation order.
    var id: Int64
    var firstName: String
    var lastName: String
    /// Uniform in 0..<1000, so `age BETWEEN 100 AND 200` selects about 10% of the rows.
    var age: Int
}
