import Foundation

/// A to-do item, as both engines store it: the `todo` table for SQLite, the `TodoItem`
/// entity for Strata.
struct TodoItem: Sendable, Equatable {
    /// The primary key, 1...scale in generation order.
    var id: Int64
    /// A short title such as "Call the plumber about the sink".
    var name: String
    /// When the item was created: roughly increasing with `id`, with up to an hour of jitter,
    /// so sorting by it is real work.
    var createdAt: Date
    /// Whether the item is checked; about 30% are.
    var done: Bool
}
