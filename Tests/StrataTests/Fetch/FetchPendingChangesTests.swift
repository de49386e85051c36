import Foundation
import Testing
@testable import Strata

/// `includesPendingChanges`: a fetch sees (or, when `false`, ignores) the context's unsaved
/// inserts, updates and deletes.
@Suite struct FetchPendingChangesTests {
    /// Saved: A (age 10), B (20), C (30). Unsaved: D inserted (25), A updated to 22,
    /// C updated to 5, B deleted.
    static func withChanges(_ body: (ObjectContext, [String: ManagedObject]) throws -> Void) throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            var people: [String: ManagedObject] = [:]
            for (name, age) in [("A", 10), ("B", 20), ("C", 30)] {
                people[name] = try FetchFixtures.person(context, ["name": .string(name), "age": .int(Int64(age))])
            }
            try context.save()
            people["D"] = try FetchFixtures.person(context, ["name": "D", "age": 25])
            try people["A"]!.setValue(22, forKey: "age")
            try people["C"]!.setValue(5, forKey: "age")
            context.delete(people["B"]!)
            try body(context, people)
        }
    }

    static func names(_ context: ObjectContext, _ request: FetchRequest) throws -> [String] {
        try context.fetch(request).map { try $0.string("name") ?? "?" }
    }

    @Test func pendingChangesCountByDefault() throws {
        try Self.withChanges { context, people throws in
            let request = try FetchRequest("Person", "age > 15", sort: [SortKey("age")])
            #expect(request.includesPendingChanges)
            #expect(try Self.names(context, request) == ["A", "D"])
            #expect(try context.count(for: request) == 2)
            #expect(try context.fetch(request)[1] === people["D"], "the inserted object itself")
            #expect(try Self.names(context, try FetchRequest("Person", sort: [SortKey("age")])) == ["C", "A", "D"])
            #expect(try context.count(for: try FetchRequest("Person")) == 3)
            var descending = try FetchRequest("Person", sort: [SortKey("age", ascending: false)])
            descending.fetchLimit = 2
            #expect(try Self.names(context, descending) == ["D", "A"])
        }
    }

    @Test func savedStateOnlyWhenExcluded() throws {
        try Self.withChanges { context, _ throws in
            var request = try FetchRequest("Person", "age > 15", sort: [SortKey("age")])
            request.includesPendingChanges = false
            #expect(try context.keys(request) == [2, 3])
            #expect(try context.count(for: request) == 2)
            request.predicate = nil
            #expect(try context.keys(request) == [1, 2, 3])
        }
    }

    /// Dictionary results always read the saved state, as in Core Data.
    @Test func dictionariesIgnorePendingChanges() throws {
        try Self.withChanges { context, _ throws in
            var request = try FetchRequest("Person", sort: [SortKey("age")])
            request.propertiesToFetch = ["name", "age"]
            let rows = try context.fetchDictionaries(request)
            #expect(rows == [["name": "A", "age": 10], ["name": "B", "age": 20], ["name": "C", "age": 30]])
        }
    }

    /// After saving, both settings agree.
    @Test func afterSaveBothAgree() throws {
        try Self.withChanges { context, _ throws in
            try context.save()
            var request = try FetchRequest("Person", "age > 15", sort: [SortKey("age")])
            let withPending = try context.keys(request)
            request.includesPendingChanges = false
            #expect(try context.keys(request) == withPending)
            #expect(withPending == [1, 4])
        }
    }

    /// An unsaved change to a related object counts for a relationship key path: a
    /// renamed team and a pet that changed owner.
    @Test func pendingChangesOfRelatedObjectsCount() throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            let team = try context.insert("Team")
            try team.setValue("Red", forKey: "title")
            let ann = try FetchFixtures.person(context, ["name": "ann"])
            let bob = try FetchFixtures.person(context, ["name": "bob"])
            try ann.setObject(team, forKey: "team")
            let pet = try context.insert("Pet")
            try pet.setValues(["name": "Rex", "age": 3])
            try pet.setObject(ann, forKey: "owner")
            try context.save()

            try team.setValue("Blue", forKey: "title")
            try pet.setObject(bob, forKey: "owner")
            #expect(try context.keys(try FetchRequest("Person", "team.title == 'Blue'")) == [ann.objectID.primaryKey])
            #expect(try context.keys(try FetchRequest("Person", "team.title == 'Red'")) == [])
            #expect(try context.keys(try FetchRequest("Person", "ANY pets.name == 'Rex'")) == [bob.objectID.primaryKey])
            #expect(try context.keys(try FetchRequest("Person", "pets.@count == 0")) == [ann.objectID.primaryKey])
            var saved = try FetchRequest("Person", "ANY pets.name == 'Rex'")
            saved.includesPendingChanges = false
            #expect(try context.keys(saved) == [ann.objectID.primaryKey])
        }
    }
}
