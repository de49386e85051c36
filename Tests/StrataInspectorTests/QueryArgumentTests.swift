import Testing
import Foundation

/// Issue 16's command-line points: a date for a `$variable` (ISO 8601 untyped, or typed with
/// `name:date=`), `export --format json` and the valid formats listed, and a negative
/// `--limit` refused with its own message.
@Suite struct QueryArgumentTests {
    static let bornBefore1990 = ["query", Inspector.logStore, "Person", "--where", "born < $d", "--keys", "name"]

    @Test func anISODateTimeArgumentIsADate() throws {
        let run = try Inspector.run(Self.bornBefore1990 + ["--arg", "d=1990-01-01T00:00:00Z"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Ada Lovelace") && run.stdout.contains("Grace Hopper"))
        #expect(!run.stdout.contains("Dijkstra"), "a person with no birth date is not before 1990")
    }

    @Test func aTypedDateArgumentIsADate() throws {
        let untyped = try Inspector.run(Self.bornBefore1990 + ["--arg", "d=1990-01-01T00:00:00Z"])
        for value in ["d:date=1990-01-01T00:00:00Z", "d:date=1990-01-01", "d:date=631152000"] {
            let typed = try Inspector.run(Self.bornBefore1990 + ["--arg", value])
            #expect(typed.status == 0, "\(value): \(typed.stderr)")
            #expect(typed.stdout == untyped.stdout, "\(value)")
        }
        let bad = try Inspector.run(Self.bornBefore1990 + ["--arg", "d:date=yesterday"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--arg d:date=yesterday: the value is not an ISO 8601 date (2025-01-01T05:00:00Z, or 2025-01-01 for midnight UTC) or seconds since 1970."), "\(bad.stderr)")
        let unknown = try Inspector.run(Self.bornBefore1990 + ["--arg", "d:time=1"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--arg d:time=…: 'time' is not a type; use int, double, bool, string, date or uuid."), "\(unknown.stderr)")
    }

    @Test func aQuotedISODateStaysAString() throws {
        let run = try Inspector.run(["query", Inspector.logStore, "Person", "--where", "name == $n", "--arg", "n='1990-01-01T00:00:00Z'"])
        #expect(run.status == 0, "a string compared with a string: \(run.stderr)")
    }

    @Test func exportWritesJSON() throws {
        let run = try Inspector.run(["export", Inspector.logStore, "Person", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        let lines = try Inspector.run(["export", Inspector.logStore, "Person"]).stdout.split(separator: "\n")
        #expect(rows?.count == lines.count)
        #expect(rows?.first?["name"] as? String == "Ada Lovelace")
    }

    @Test func anUnknownExportFormatListsTheValidOnes() throws {
        let run = try Inspector.run(["export", Inspector.logStore, "Person", "--format", "xml"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("The value 'xml' is invalid for '--format <format>'. Please provide one of 'jsonl', 'json' or 'csv'."), "\(run.stderr)")
    }

    @Test func aNegativeLimitSaysSo() throws {
        for (option, message) in [("--limit", "--limit must not be negative."), ("--offset", "--offset must not be negative.")] {
            let run = try Inspector.run(["query", Inspector.logStore, "Person", option, "-3"])
            #expect(run.status == 2)
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(!run.stderr.contains("Missing value"), "\(run.stderr)")
        }
    }
}
