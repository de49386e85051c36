import Foundation
import StrataModels

@Model final class TodoList {
    var title: String
    @Relationship(deleteRule: .cascade, inverse: \TodoItem.list) var items: [TodoItem] = []
    init(title: String) { self.title = title }
}

enum Priority: String, Codable, CaseIterable {
    case low, normal, high
}

@Model final class TodoItem {
    var name: String
    var createdAt: Date
    var done: Bool = false
    var notes: String? = nil
    var priority: Priority = .normal          // a String- or Int-backed enum
    var list: TodoList?
    @Transient var isSelected = false          // not stored
    init(name: String, createdAt: Date = .now) { self.name = name; self.createdAt = createdAt }
}
