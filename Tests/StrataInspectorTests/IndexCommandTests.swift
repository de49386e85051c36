import Foundation
import StrataTestSupport
import Testing

/// Indexes in the inspector: `schema` and `info` list them, and `query --explain` says which
/// index found the rows and whether one ordered them.
@Suite struct IndexCommandTests {
    static let schemaJSON = #"""
    {"entities": [{"name": "Person",
                   "attributes": [{"name": "email", "type": "string"}, {"name": "age", "type": "int64"}],
                   "relationships": [],
                   "indexes": [["email"], ["age", "email"]]}]}
    """#

    @Test func schemaInfoAndExplainShowTheIndexes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let schemaFile = directory.appending("schema.json")
        try Self.schemaJSON.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let store = directory.appending("people.strata")
        let rows = directory.appending("people.jsonl")
        try (0..<30).map { #"{"email": "p\#($0)@x.org", "age": \#($0 % 7)}"# }.joined(separator: "\n")
            .write(toFile: rows, atomically: true, encoding: .utf8)
        #expect(try Inspector.run(["create", store, "--schema", schemaFile]).status == 0)
        let imported = try Inspector.run(["import", store, "Person", rows])
        #expect(imported.status == 0, "\(imported.stderr)")

        let schema = try Inspector.run(["schema", store])
        #expect(schema.stdout.contains("  index (email)\n  index (age, email)"), "\(schema.stdout)")
        let info = try Inspector.run(["info", store])
        #expect(info.stdout.contains("Indexes:"), "\(info.stdout)")
        #expect(info.stdout.contains("Person  (age, email)"), "\(info.stdout)")

        let point = try Inspector.run(["query", store, "Person", "--where", "email == 'p3@x.org'", "--explain"])
        #expect(point.status == 0, "\(point.stderr)")
        #expect(point.stdout == "rows: index (email), email in {\"p3@x.org\"}\norder: sort (or primary key)\nestimate: 1 candidate from the index, 30 rows to scan\nplan: key probe of index (email), no row read\n", "\(point.stdout)")
        let sorted = try Inspector.run(["query", store, "Person", "--sort", "email:desc", "--explain"])
        #expect(sorted.stdout == "rows: chunk scan\norder: index (email) walked\n", "\(sorted.stdout)")
        let range = try Inspector.run(["query", store, "Person", "--where", "age BETWEEN {2, 3}", "--keys", "email"])
        #expect(range.status == 0, "\(range.stderr)")
        // Ages are i % 7 for i in 0..<30: 2 and 3 each four times.
        let emails = range.stdout.split(separator: "\n").filter { $0.contains("@x.org") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(emails == ["p2@x.org", "p3@x.org", "p9@x.org", "p10@x.org", "p16@x.org", "p17@x.org", "p23@x.org", "p24@x.org"], "\(range.stdout)")
    }
}
