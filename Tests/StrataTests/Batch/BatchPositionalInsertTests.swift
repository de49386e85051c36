import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// `BatchInsertRequest(entityName:properties:count:fill:)`: rows given by position store
/// exactly what the same rows given as dictionaries store, and every mistake is refused with
/// a typed error that names it, writing nothing.
@Suite struct BatchPositionalInsertTests {
    static func row(_ i: Int, list: Int64) -> [String: AttributeValue] {
        ["name": .string("item \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(i) * 30)),
         "count": i % 5 == 0 ? .null : .int(Int64(i)), "list": .int(list)]
    }

    /// ``row(_:list:)`` with every stored property: every fourth row gives `note`, every
    /// fifth leaves `count` nil.
    static func fullRow(_ i: Int, list: Int64) -> [String: AttributeValue] {
        var row = row(i, list: list)
        row["done"] = .bool(i % 3 == 0)
        row["priority"] = .int(Int64(i % 10))
        row["score"] = .double(Double(i) / 4)
        row["note"] = i % 4 == 0 ? .string("note \(i)") : .null
        return row
    }

    /// Runs `body` with the directory of a new to-do store, the store, and the key of the one
    /// list it holds; the directory is removed afterwards.
    static func withNewStoreAndList(_ body: (String, PersistentStore, Int64) throws -> Void) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PersistentStore.open(at: dir.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
        try body(dir.path, store, try BatchFixture.insert(store, "TodoList", [["title": "A"]])[0].primaryKey)
    }

    @Test func positionalRowsStoreWhatDictionaryRowsStore() throws {
        var dumps: [[String: [Int64: [String: AttributeValue]]]] = []
        var results: [BatchResult] = []
        for positional in [false, true] { try Self.withNewStoreAndList { directory, store, list in
            var request: BatchInsertRequest
            if positional {
                // `done`, `priority`, `score` and `note` are not listed: defaults, as for a missing key.
                request = BatchInsertRequest(entityName: "TodoItem", properties: ["createdAt", "name", "count", "list"],
                                             count: 2_500) { i, values in
                    let row = Self.row(i, list: list)
                    values[0] = row["createdAt"]!
                    values[1] = row["name"]!
                    // Left .null for every fifth row: stored as nil.
                    if i % 5 != 0 { values[2] = row["count"]! }
                    values[3] = row["list"]!
                }
            } else {
                request = BatchInsertRequest(entityName: "TodoItem", count: 2_500) { i, row in
                    row = Self.row(i, list: list)
                }
            }
            request.resultType = .count
            #expect(request.count == 2_500)
            #expect(request.objects.count == 2_500 && request.objects[7] == Self.row(7, list: list))
            results.append(try store.execute(request))
            try store.close()
            let reopened = try PersistentStore.open(at: directory, schema: BatchFixture.todoSchema, options: BatchFixture.options())
            dumps.append(BatchFixture.dump(reopened))
            try reopened.close()
        } }
        #expect(results[0].count == 2_500 && results[1].count == 2_500)
        #expect(dumps[0]["TodoItem"]?.count == 2_500)
        #expect(dumps[1]["TodoItem"]?[1]?["done"] == .bool(false) && dumps[1]["TodoItem"]?[1]?["count"] == .null)
        #expect(dumps[0] == dumps[1])
    }

    @Test func anUnknownOrRepeatedPropertyIsRefused() throws {
        try BatchErrorTests.expectRefused(.unknownKey, mentioning: ["The property list", "'nam'", "did you mean 'name'"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: ["nam"], count: 3) { _, values in
                values[0] = .string("x")
            })
        }
        try BatchErrorTests.expectRefused(.misuse, mentioning: ["'name' twice"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: ["name", "createdAt", "name"], count: 3) { _, values in
                values = [.string("x"), .date(Date()), .string("y")]
            })
        }
    }

    @Test func aWrongTypeOrAMissingRequiredValueIsRefusedNamingTheRow() throws {
        try BatchErrorTests.expectRefused(.typeMismatch, mentioning: ["Row 1200", "TodoItem.createdAt", "string"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: ["name", "createdAt"], count: 2_000) { i, values in
                values[0] = .string("item \(i)")
                values[1] = i == 1_200 ? .string("yesterday") : .date(Date(timeIntervalSince1970: Double(i)))
            })
        }
        // `name` is required and has no default: left .null in row 7, and not listed at all.
        try BatchErrorTests.expectRefused(.typeMismatch, mentioning: ["Row 7", "TodoItem.name"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: ["name", "createdAt"], count: 10) { i, values in
                if i != 7 { values[0] = .string("item \(i)") }
                values[1] = .date(Date())
            })
        }
        try BatchErrorTests.expectRefused(.typeMismatch, mentioning: ["Row 0", "TodoItem.name"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: ["createdAt"], count: 10) { _, values in
                values[0] = .date(Date())
            })
        }
    }

    @Test func aFillThatChangesTheNumberOfValuesIsRefused() throws {
        try BatchErrorTests.expectRefused(.misuse, mentioning: ["Row 4", "3 values for 2 properties"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: ["name", "createdAt"], count: 10) { i, values in
                values[0] = .string("item \(i)")
                values[1] = .date(Date())
                if i == 4 { values.append(.null) }
            })
        }
    }

    /// Each row starts as `.null`: a value set in one row does not leak into the next.
    @Test func everyRowStartsEmpty() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PersistentStore.open(at: dir.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
        var request = BatchInsertRequest(entityName: "TodoItem", properties: ["name", "createdAt", "note"], count: 4) { i, values in
            values[0] = .string("item \(i)")
            values[1] = .date(Date(timeIntervalSince1970: 0))
            if i == 0 { values[2] = .string("only the first") }
        }
        request.resultType = .objectIDs
        let ids = try #require(try store.execute(request).objectIDs)
        #expect(try BatchFixture.values(store, ids, key: "note") == [.string("only the first"), .null, .null, .null])
        try store.close()
    }

    /// Rows that list every stored property in the layout's order take a shorter path (their
    /// values are moved into the request's rows as they are): they must store what
    /// dictionaries store, start each row empty, and be refused for the same mistakes.
    @Test func rowsListingEveryPropertyInOrderStoreWhatDictionaryRowsStore() throws {
        var dumps: [[String: [Int64: [String: AttributeValue]]]] = []
        var layoutNames: [String] = []
        for positional in [false, true] { try Self.withNewStoreAndList { _, store, list in
            let names = try store.layout(named: "TodoItem").properties.map(\.name)
            #expect(Set(names) == ["name", "done", "createdAt", "priority", "count", "score", "note", "list"])
            layoutNames = names
            let request = positional
                ? BatchInsertRequest(entityName: "TodoItem", properties: names, count: 1_000) { i, values in
                    let row = Self.fullRow(i, list: list)
                    for (k, name) in names.enumerated() where row[name] != .null { values[k] = row[name]! }
                }
                : BatchInsertRequest(entityName: "TodoItem", count: 1_000) { i, values in values = Self.fullRow(i, list: list) }
            _ = try store.execute(request)
            dumps.append(BatchFixture.dump(store))
            try store.close()
        } }
        #expect(dumps[0]["TodoItem"]?.count == 1_000)
        #expect(dumps[1]["TodoItem"]?[2]?["note"] == .null && dumps[1]["TodoItem"]?[5]?["note"] == .string("note 4"))
        #expect(dumps[0] == dumps[1])

        let names = layoutNames
        let name = try #require(names.firstIndex(of: "name")), createdAt = try #require(names.firstIndex(of: "createdAt"))
        // A listed property left null is stored as null, not as its default: the other
        // required ones are given.
        let done = try #require(names.firstIndex(of: "done")), priority = try #require(names.firstIndex(of: "priority"))
        try BatchErrorTests.expectRefused(.typeMismatch, mentioning: ["Row 30", "TodoItem.createdAt", "string"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: names, count: 50) { i, values in
                (values[name], values[done], values[priority]) = (.string("item \(i)"), .bool(false), .int(1))
                values[createdAt] = i == 30 ? .string("yesterday") : .date(Date(timeIntervalSince1970: Double(i)))
            })
        }
        // Row 7 leaves the required `name` unset: the value row 6 gave must not carry over.
        try BatchErrorTests.expectRefused(.typeMismatch, mentioning: ["Row 7", "TodoItem.name"]) { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", properties: names, count: 10) { i, values in
                if i != 7 { values[name] = .string("item \(i)") }
                (values[createdAt], values[done], values[priority]) = (.date(Date()), .bool(true), .int(2))
            })
        }
    }

    /// An upsert by position matches on the constraint and sets every listed property of a
    /// matched row (a `.null` left in a listed property sets nil); unlisted ones keep their
    /// stored values.
    @Test func anUpsertByPositionSetsTheListedProperties() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        try UniquenessFixtures.save(fixture, [("a@x", "Ann", 1), ("b@x", "Bob", 2)])
        let rows: [(String, String?)] = [("b@x", "Bobby"), ("c@x", "Cy"), ("a@x", nil)]
        var request = BatchInsertRequest(entityName: "Person", properties: ["email", "name"], count: rows.count) { i, values in
            values[0] = .string(rows[i].0)
            if let name = rows[i].1 { values[1] = .string(name) }
        }
        request.mode = .upsert
        request.resultType = .count
        #expect(try fixture.store.execute(request).count == 3)
        let stored = Set(UniquenessFixtures.rows(fixture.store).values.map(\.description))
        #expect(stored == ["(a@x, nil, 1)", "(b@x, Bobby, 2)", "(c@x, Cy, 0)"])
    }
}
