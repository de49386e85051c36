import Foundation
import StrataModels

/// A to-do item, the example's one entity, as a typed model.
@Model final class TodoItem {
    var name: String
    var createdAt: Date
    var done: Bool = false

    init(name: String, createdAt: Date = .now) {
        self.name = name
        self.createdAt = createdAt
    }

    /// `[x] Buy milk #1  2024-12-31T23:12:05Z`.
    var summary: String {
        "[\(done ? "x" : " ")] \(name)  \(ISO8601DateFormatter().string(from: createdAt))"
    }
}
