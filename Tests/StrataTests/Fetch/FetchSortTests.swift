import Foundation
import Testing
@testable import Strata

/// Sort keys (several, ascending/descending, case-insensitive, nil ordering), fetchLimit
/// and fetchOffset over a small fixed data set with nils and ties.
@Suite struct FetchSortTests {
    /// Five people (primary keys 1–5) with nils, duplicates and case variants:
    ///
    /// | pk | name | nickname | age | score | born | active |
    /// |----|------|----------|-----|-------|------|--------|
    /// | 1  | bob  | B        | 30  | 1.5   | d3   | true   |
    /// | 2  | Ann  | nil      | nil | 2.0   | nil  | false  |
    /// | 3  | ann  | a        | 30  | nil   | d1   | nil    |
    /// | 4  | Cy   | c        | 10  | -1    | d2   | true   |
    /// | 5  | al   | nil      | 50  | 2.0   | d1   | false  |
    static func withPeople(_ body: (ObjectContext) throws -> Void) throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            let d = FetchFixtures.day
            let rows: [[String: AttributeValue]] = [
                ["name": "bob", "nickname": "B", "age": 30, "score": 1.5, "born": .date(d(3)), "active": true],
                ["name": "Ann", "nickname": nil, "age": nil, "score": 2.0, "born": nil, "active": false],
                ["name": "ann", "nickname": "a", "age": 30, "score": nil, "born": .date(d(1)), "active": nil],
                ["name": "Cy", "nickname": "c", "age": 10, "score": -1.0, "born": .date(d(2)), "active": true],
                ["name": "al", "nickname": nil, "age": 50, "score": 2.0, "born": .date(d(1)), "active": false],
            ]
            for row in rows { try FetchFixtures.person(context, row) }
            try context.save()
            try body(context)
        }
    }

    static func keys(_ context: ObjectContext, _ sort: [SortKey], _ format: String? = nil,
                     offset: Int = 0, limit: Int = 0) throws -> [Int64] {
        var request = try FetchRequest("Person", format, sort: sort)
        request.fetchOffset = offset
        request.fetchLimit = limit
        let keys = try context.keys(request)
        #expect(try context.count(for: request) == keys.count)
        return keys
    }

    @Test func stringsCaseSensitiveAndInsensitive() throws {
        try Self.withPeople { c throws in
            #expect(try Self.keys(c, []) == [1, 2, 3, 4, 5])
            #expect(try Self.keys(c, [SortKey("name")]) == [2, 4, 5, 3, 1])
            #expect(try Self.keys(c, [SortKey("name", ascending: false)]) == [1, 3, 5, 4, 2])
            // Ann and ann tie ignoring case: primary-key order breaks the tie, either direction.
            #expect(try Self.keys(c, [SortKey("name", caseInsensitive: true)]) == [5, 2, 3, 1, 4])
            #expect(try Self.keys(c, [SortKey("name", ascending: false, caseInsensitive: true)]) == [4, 1, 2, 3, 5])
            #expect(try Self.keys(c, [SortKey("nickname")]) == [2, 5, 1, 3, 4])
            #expect(try Self.keys(c, [SortKey("nickname", caseInsensitive: true)]) == [2, 5, 3, 1, 4])
        }
    }

    @Test func nilsComeFirstAscendingAndLastDescending() throws {
        try Self.withPeople { c throws in
            #expect(try Self.keys(c, [SortKey("age")]) == [2, 4, 1, 3, 5])
            #expect(try Self.keys(c, [SortKey("age", ascending: false)]) == [5, 1, 3, 4, 2])
            #expect(try Self.keys(c, [SortKey("score")]) == [3, 4, 1, 2, 5])
            #expect(try Self.keys(c, [SortKey("score", ascending: false)]) == [2, 5, 1, 4, 3])
            #expect(try Self.keys(c, [SortKey("born")]) == [2, 3, 5, 4, 1])
            #expect(try Self.keys(c, [SortKey("born", ascending: false)]) == [1, 4, 3, 5, 2])
            #expect(try Self.keys(c, [SortKey("active")]) == [3, 2, 5, 1, 4])
            #expect(try Self.keys(c, [SortKey("active", ascending: false)]) == [1, 4, 2, 5, 3])
        }
    }

    /// Without nils a single double, date or bool key takes the fast path; same answers.
    @Test func singleNumericKeyWithoutNils() throws {
        try Self.withPeople { c throws in
            #expect(try Self.keys(c, [SortKey("score")], "score != nil") == [4, 1, 2, 5])
            #expect(try Self.keys(c, [SortKey("score", ascending: false)], "score != nil") == [2, 5, 1, 4])
            #expect(try Self.keys(c, [SortKey("born")], "born != nil") == [3, 5, 4, 1])
            #expect(try Self.keys(c, [SortKey("active", ascending: false)], "active != nil") == [1, 4, 2, 5])
            #expect(try Self.keys(c, [SortKey("size")]) == [1, 2, 3, 4, 5])
        }
    }

    @Test func severalKeys() throws {
        try Self.withPeople { c throws in
            #expect(try Self.keys(c, [SortKey("age"), SortKey("name", ascending: false)]) == [2, 4, 1, 3, 5])
            #expect(try Self.keys(c, [SortKey("age", ascending: false), SortKey("name", caseInsensitive: true)]) == [5, 3, 1, 4, 2])
            #expect(try Self.keys(c, [SortKey("score", ascending: false), SortKey("born"), SortKey("name")]) == [2, 5, 1, 4, 3])
            #expect(try Self.keys(c, [SortKey("born"), SortKey("active", ascending: false)]) == [2, 5, 3, 4, 1])
            #expect(try Self.keys(c, [SortKey("active"), SortKey("age", ascending: false)]) == [3, 5, 2, 1, 4])
        }
    }

    @Test func limitAndOffset() throws {
        try Self.withPeople { c throws in
            let byAge = [SortKey("age")] // [2, 4, 1, 3, 5]
            #expect(try Self.keys(c, byAge, limit: 2) == [2, 4])
            #expect(try Self.keys(c, byAge, offset: 3) == [3, 5])
            #expect(try Self.keys(c, byAge, offset: 1, limit: 2) == [4, 1])
            #expect(try Self.keys(c, byAge, offset: 4, limit: 10) == [5])
            #expect(try Self.keys(c, byAge, offset: 5) == [])
            #expect(try Self.keys(c, byAge, offset: 99, limit: 1) == [])
            #expect(try Self.keys(c, byAge, limit: 0) == [2, 4, 1, 3, 5])
            #expect(try Self.keys(c, byAge, offset: 2, limit: .max) == [1, 3, 5])
            #expect(try Self.keys(c, byAge, offset: .max, limit: .max) == [])
            #expect(try Self.keys(c, byAge, "age >= 30", offset: 1, limit: 1) == [3])
        }
    }
}
