import Foundation
import StrataTestSupport
import Testing

/// import → export gives back the same file; writing commands report what they changed.
@Suite struct RoundTripTests {
    @Test func importingThenExportingJSONLinesGivesTheSameFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.appending("people.strata")
        let input = "\(Inspector.fixtures)/people.jsonl"
        #expect(try Inspector.run(["create", store, "--schema", "\(Inspector.fixtures)/schema.json"]).status == 0)
        let imported = try Inspector.run(["import", store, "Person", input])
        #expect(imported.status == 0)
        #expect(imported.stdout == "Imported 5 Person rows (LSN 2).\n")
        let exported = try Inspector.run(["export", store, "Person"])
        #expect(exported.stdout == (try String(contentsOfFile: input, encoding: .utf8)))
    }

    /// The simplest schema file, exactly as the documentation writes it.
    @Test func theSimplestSchemaFileWorksAsWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try """
            {"entities": [{"name": "Person", "attributes": [{"name": "age", "type": "int64"}, {"name": "nickname", "type": "string", "optional": true}], "relationships": []}]}
            """.write(toFile: directory.appending("schema.json"), atomically: true, encoding: .utf8)
        let store = directory.appending("simple.strata")
        let created = try Inspector.run(["create", store, "--schema", directory.appending("schema.json")])
        #expect(created.status == 0, "\(created.stderr)")
        try "{\"age\": 30}\n{\"nickname\": \"Bo\", \"age\": 41}\n".write(toFile: directory.appending("people.jsonl"), atomically: true, encoding: .utf8)
        try "age,nickname\n7,Al\n8,\n".write(toFile: directory.appending("people.csv"), atomically: true, encoding: .utf8)
        let jsonl = try Inspector.run(["import", store, "Person", directory.appending("people.jsonl")])
        #expect(jsonl.stdout == "Imported 2 Person rows (LSN 2).\n" && jsonl.stderr.isEmpty, "\(jsonl.stderr)")
        #expect(try Inspector.run(["import", store, "Person", directory.appending("people.csv")]).status == 0)
        #expect(try Inspector.run(["export", store, "Person"]).stdout == """
            {"age":30,"nickname":null}
            {"age":41,"nickname":"Bo"}
            {"age":7,"nickname":"Al"}
            {"age":8,"nickname":null}

            """)
        #expect(try Inspector.run(["count", store, "Person", "--where", "nickname == nil"]).stdout == "2\n")
    }

    /// Files from Windows and spreadsheets: CRLF line ends and a byte-order mark.
    @Test func crlfLineEndsAndAByteOrderMarkImport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try """
            {"entities": [{"name": "Person", "attributes": [{"name": "age", "type": "int64"}, {"name": "nickname", "type": "string", "optional": true}], "relationships": []}]}
            """.write(toFile: directory.appending("schema.json"), atomically: true, encoding: .utf8)
        let store = directory.appending("crlf.strata")
        #expect(try Inspector.run(["create", store, "--schema", directory.appending("schema.json")]).status == 0)
        try Data("\u{FEFF}{\"age\":1}\r\n{\"age\":2,\"nickname\":\"b\"}\r\n".utf8).write(to: URL(fileURLWithPath: directory.appending("win.jsonl")))
        try Data("\u{FEFF}age,nickname\r\n3,\"c, d\"\r\n".utf8).write(to: URL(fileURLWithPath: directory.appending("win.csv")))
        for file in ["win.jsonl", "win.csv"] {
            let run = try Inspector.run(["import", store, "Person", directory.appending(file)])
            #expect(run.status == 0, "\(file): \(run.stderr)")
        }
        #expect(try Inspector.run(["export", store, "Person", "--format", "csv"]).stdout == "age,nickname\n1,\n2,b\n3,\"c, d\"\n")
        try Data("{\"age\":4}\r\n{\"age\":\"x\"}\r\n".utf8).write(to: URL(fileURLWithPath: directory.appending("bad.jsonl")))
        let bad = try Inspector.run(["import", store, "Person", directory.appending("bad.jsonl")])
        #expect(bad.status == 8 && bad.stderr.contains("bad.jsonl:2: age needs a whole number"), "\(bad.stderr)")
    }

    /// Progress bars are drawn only on a terminal: piped, long work writes nothing to standard error.
    @Test func nothingOnStandardErrorWhenItIsNotATerminal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        for arguments in [["import", store, "Person", "\(Inspector.fixtures)/people.jsonl"], ["export", store, "Person"],
                          ["query", store, "Person"], ["verify", store, "--deep"]] {
            let run = try Inspector.run(arguments)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(arguments): \(run.stderr)")
        }
    }

    @Test func csvExportImportsBackToTheSameRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let csv = try Inspector.run(["export", Inspector.logStore, "Person", "--format", "csv"]).stdout
        try csv.write(toFile: directory.appending("people.csv"), atomically: true, encoding: .utf8)
        let store = directory.appending("copy.strata")
        #expect(try Inspector.run(["create", store, "--schema", "\(Inspector.fixtures)/schema.json"]).status == 0)
        #expect(try Inspector.run(["import", store, "Person", directory.appending("people.csv")]).status == 0)
        #expect(try Inspector.run(["export", store, "Person"]).stdout
                == (try Inspector.run(["export", Inspector.logStore, "Person"]).stdout))
    }

    @Test func updateDeleteAndCheckpointReportWhatChanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        #expect(try Inspector.run(["update", store, "Person", "--set", "score=2.5", "--set", "nickname=", "--where", "age < 50"]).stdout
                == "Updated 2 Person rows.\n")
        #expect(try Inspector.run(["count", store, "Person", "--where", "score == 2.5 AND nickname == nil"]).stdout == "2\n")
        #expect(try Inspector.run(["delete", store, "Person", "--where", "name BEGINSWITH 'Ada'"]).stdout
                == "Deleted 3 rows (cascades included).\n")
        #expect(try Inspector.run(["checkpoint", store]).stdout.hasPrefix("Checkpoint at LSN 7"))
        let verify = try Inspector.run(["verify", store, "--deep"])
        #expect(verify.status == 0)
        #expect(verify.stdout.hasSuffix("The store is sound.\n"))
    }
}
