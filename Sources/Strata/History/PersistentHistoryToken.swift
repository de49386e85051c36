/// A position in a store's persistent history: the point right after one transaction.
///
/// Core Data's `NSPersistentHistoryToken`. Keep the token of the last transaction you
/// processed; ``PersistentStore/history(after:)`` then returns what came after it, and
/// ``PersistentStore/deleteHistory(before:)`` purges what you no longer need. Tokens are
/// `Codable`, so they can be saved with the app's state.
public struct PersistentHistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The LSN of the transaction the token follows (0: before the first).
    public let lsn: UInt64

    /// The token right after transaction `lsn` (0: the start of history).
    public init(lsn: UInt64) { self.lsn = lsn }

    /// Orders tokens by position.
    public static func < (a: PersistentHistoryToken, b: PersistentHistoryToken) -> Bool { a.lsn < b.lsn }

    /// `after LSN n`.
    public var description: String { "after LSN \(lsn)" }
}

/// What a change did to a row (Core Data's `NSPersistentHistoryChangeType`).
public enum PersistentHistoryChangeType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// The row was inserted.
    case insert = 1
    /// Some of the row's properties changed (``PersistentHistoryChanges/updatedProperties``).
    case update = 2
    /// The row was deleted.
    case delete = 3

    /// `insert`, `update` or `delete`.
    public var description: String {
        switch self {
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        }
    }
}
