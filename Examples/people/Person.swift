import Foundation
import StrataModels

/// A person: the example's one entity, as a typed model.
@Model final class Person {
    var firstName: String
    var lastName: String
    @Attribute(.range(0...300)) var age: Int16

    init(firstName: String, lastName: String, age: Int16) {
        self.firstName = firstName
        self.lastName = lastName
        self.age = age
    }
}

/// The background half of the recipe: a model actor runs on its own private-queue context
/// and hands out only IDs (`Sendable`), never objects.
@ModelActor actor PeopleFinder {
    /// The IDs of the people aged `ages`.
    func ids(agedFrom low: Int16, to high: Int16) throws -> [ObjectID] {
        try modelContext.fetchIdentifiers(FetchDescriptor<Person>(predicate: #Predicate { $0.age >= low && $0.age <= high }))
    }
}
