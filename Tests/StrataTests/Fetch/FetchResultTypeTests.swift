import Foundation
import Testing
@testable import Strata

/// The four result types, `execute(_:)`, `propertiesToFetch` and `count(for:)`.
@Suite struct FetchResultTypeTests {
    /// Teams Red (pk 1) and Blue (pk 2); people ann (team Red, age 30), bob (no team,
    /// age nil), cy (team Blue, age 40).
    static func withPeople(_ body: (ObjectContext) throws -> Void) throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            let red = try context.insert("Team"), blue = try context.insert("Team")
            try red.setValue("Red", forKey: "title")
            try blue.setValue("Blue", forKey: "title")
            try FetchFixtures.person(context, ["name": "ann", "age": 30]).setObject(red, forKey: "team")
            try FetchFixtures.person(context, ["name": "bob"])
            try FetchFixtures.person(context, ["name": "cy", "age": 40]).setObject(blue, forKey: "team")
            try context.save()
            try body(context)
        }
    }

    @Test func executeReturnsWhatTheResultTypeAsks() throws {
        try Self.withPeople { context throws in
            var request = try FetchRequest("Person", "age != nil", sort: [SortKey("age", ascending: false)])
            request.resultType = .objects
            guard case .objects(let objects) = try context.execute(request) else { Issue.record("not objects"); return }
            #expect(try objects.map { try $0.string("name") } == ["cy", "ann"])

            request.resultType = .objectIDs
            guard case .objectIDs(let ids) = try context.execute(request) else { Issue.record("not IDs"); return }
            #expect(ids == objects.map(\.objectID))
            #expect(ids.allSatisfy { $0.entityName == "Person" && $0.storeID == context.store.storeID })

            request.resultType = .count
            guard case .count(let count) = try context.execute(request) else { Issue.record("not a count"); return }
            #expect(count == 2)

            request.resultType = .dictionaries
            request.propertiesToFetch = ["name", "team"]
            guard case .dictionaries(let rows) = try context.execute(request) else { Issue.record("not dictionaries"); return }
            #expect(rows == [["name": "cy", "team": .int(2)], ["name": "ann", "team": .int(1)]])
        }
    }

    @Test func dictionariesOfEveryAttributeByDefault() throws {
        try Self.withPeople { context throws in
            let rows = try context.fetchDictionaries(try FetchRequest("Person", "name == 'bob'"))
            #expect(rows.count == 1)
            #expect(Set(rows[0].keys) == ["name", "nickname", "age", "score", "born", "active", "size"])
            #expect(rows[0]["name"] == "bob" && rows[0]["age"] == .null && rows[0]["size"] == 0)

            var request = try FetchRequest("Person", sort: [SortKey("name")])
            request.propertiesToFetch = ["team", "age"]
            request.fetchOffset = 1
            #expect(try context.fetchDictionaries(request) == [["team": .null, "age": .null], ["team": .int(2), "age": 40]])
        }
    }

    @Test func countAppliesOffsetAndLimit() throws {
        try Self.withPeople { context throws in
            var request = try FetchRequest("Person")
            #expect(try context.count(for: request) == 3)
            request.fetchLimit = 2
            #expect(try context.count(for: request) == 2)
            request.fetchOffset = 2
            #expect(try context.count(for: request) == 1)
            request.fetchOffset = 5
            #expect(try context.count(for: request) == 0)
            #expect(try context.count(for: try FetchRequest("Person", "team.title BEGINSWITH 'R'")) == 1)
            #expect(try context.count(for: try FetchRequest("Team")) == 2)
            #expect(try context.count(for: try FetchRequest("Pet")) == 0)
        }
    }
}
