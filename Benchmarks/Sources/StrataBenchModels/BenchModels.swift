public import Foundation
public import StrataModels

/// The to-do item of the benchmark's stores, as a typed model: the same entity as
/// `StrataFixtures.todoSchema`, so the typed workloads run on the same fixture stores.
@Model public final class TodoItem {
    public var name: String
    public var createdAt: Date
    public var done: Bool
    public init(name: String, createdAt: Date, done: Bool) {
        self.name = name
        self.createdAt = createdAt
        self.done = done
    }
}

/// The person of the benchmark's stores, as a typed model (`StrataFixtures.personSchema`).
@Model public final class Person {
    public var firstName: String
    public var lastName: String
    public var age: Int64
    public init(firstName: String, lastName: String, age: Int64) {
        self.firstName = firstName
        self.lastName = lastName
        self.age = age
    }
}
