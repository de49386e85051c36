import Foundation
import Strata
import StrataTestSupport
import Testing

/// Every class of bad input: one clear message on standard error and its own exit code.
@Suite struct ErrorPathTests {
    /// Runs `arguments` and checks the exit code, that nothing went to standard output, and
    /// that standard error has `phrases`.
    private func expectFailure(_ arguments: [String], exit: Int32, _ phrases: String...,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try Inspector.run(arguments)
        #expect(run.status == exit, "strata \(arguments.joined(separator: " ")): \(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stdout.isEmpty, sourceLocation: sourceLocation)
        for phrase in phrases {
            #expect(run.stderr.contains(phrase), "missing '\(phrase)' in: \(run.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func usageErrorsExitWith2() throws {
        try expectFailure(["query", Inspector.logStore], exit: 2, "Missing expected argument '<entity>'")
        try expectFailure(["delete", Inspector.logStore, "Person"], exit: 2, "delete needs --where")
        try expectFailure(["log", Inspector.logStore, "--limit", "many"], exit: 2, "'many' is invalid")
        try expectFailure(["query", Inspector.logStore, "Person", "--sort", "age:sideways"], exit: 2, "--sort")
        try expectFailure(["frobnicate"], exit: 2)
    }

    @Test func missingPathOrNotAStoreExitsWith3() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try expectFailure(["info", directory.appending("missing")], exit: 3, "There is no store at")
        try expectFailure(["count", "\(Inspector.fixtures)/schema.json", "Person"], exit: 3, "is a file, not a store")
        try "hello".write(toFile: directory.appending("notes.txt"), atomically: true, encoding: .utf8)
        try expectFailure(["query", directory.path, "Person"], exit: 3, "is not a Strata store")
        try expectFailure(["import", directory.appending("missing"), "Person", "\(Inspector.fixtures)/people.jsonl"], exit: 3)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("missing")), "a writing command must not create a missing store")
    }

    @Test func corruptionExitsWith4NamingFileAndOffset() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        let segment = "\(store)/wal-00000000000000000001.log"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: segment)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: segment))
        try expectFailure(["query", store, "Person"], exit: 4, "wal-00000000000000000001.log", "at byte")
        let verify = try Inspector.run(["verify", store])
        #expect(verify.status == 4)
        #expect(verify.stdout.contains("error"))
        #expect(verify.stderr.contains("verification failed"))
    }

    @Test func aDamagedSnapshotIsReportedOnceByVerify() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.checkpointedStore, into: directory.path)
        let snapshot = "\(store)/snapshot-00000000000000000005.snap"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: snapshot)))
        bytes[100] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: snapshot))
        try expectFailure(["count", store, "Person"], exit: 4, "snapshot-00000000000000000005.snap", "offset")
        let verify = try Inspector.run(["verify", store, "--deep"])
        #expect(verify.status == 4)
        #expect(verify.stdout.components(separatedBy: "  error  ").count == 2, "\(verify.stdout)")
        #expect(verify.stdout.hasSuffix("1 problem found.\n"))
    }

    @Test func writingWhileAnotherProcessWritesExitsWith5() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        let writer = try PersistentStore.open(at: store)
        defer { try? writer.close() }
        try expectFailure(["checkpoint", store], exit: 5, "open for writing in another process", "Read-only commands")
        try expectFailure(["update", store, "Person", "--set", "age=1"], exit: 5)
        // Readers still work while the writer holds the lock.
        let count = try Inspector.run(["count", store, "Person"])
        #expect(count.status == 0 && count.stdout == "5\n")
    }

    @Test func unknownNamesExitWith6AndSuggestTheNearest() throws {
        try expectFailure(["query", Inspector.logStore, "Persn"], exit: 6, "did you mean 'Person'?")
        try expectFailure(["count", Inspector.logStore, "Person", "--where", "agee > 3"], exit: 6, "did you mean 'age'?")
        try expectFailure(["query", Inspector.logStore, "Person", "--sort", "nam"], exit: 6, "did you mean 'name'?")
        try expectFailure(["query", Inspector.logStore, "Person", "--keys", "name,nickame"], exit: 6, "did you mean 'nickname'?")
        try expectFailure(["export", Inspector.logStore, "Pets"], exit: 6, "did you mean 'Pet'?")
    }

    @Test func unknownNamesNameTheNearestEvenWhenFarOff() throws {
        try expectFailure(["query", Inspector.logStore, "Zebra"], exit: 6, "did you mean '", "Its entities are: ")
        try expectFailure(["count", Inspector.logStore, "Person", "--where", "zzz > 1"], exit: 6, "did you mean '")
        try expectFailure(["query", Inspector.logStore, "Person", "--sort", "qqqq"], exit: 6, "did you mean '")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        // An abbreviation suggests the key it starts.
        try expectFailure(["update", store, "Person", "--set", "nick=Al"], exit: 6, "did you mean 'nickname'?")
        try "nick,age\nAl,3\n".write(toFile: directory.appending("abbrev.csv"), atomically: true, encoding: .utf8)
        try expectFailure(["import", store, "Person", directory.appending("abbrev.csv")], exit: 8,
                          "abbrev.csv:1: unknown key 'nick'; did you mean 'nickname'?", "Nothing was imported")
        let run = try Inspector.run(["count", store, "Person", "--where", "agex > 1"])
        #expect(!run.stderr.contains("?."), "stray period after the question mark: \(run.stderr)")
    }

    @Test func predicateSyntaxExitsWith7WithACaret() throws {
        try expectFailure(["query", Inspector.logStore, "Person", "--where", "age >= AND"], exit: 7,
                          "column 8", "age >= AND\n       ^")
        try expectFailure(["count", Inspector.logStore, "Person", "--where", "age > $limit"], exit: 7, "$limit",
                          "--arg limit=", "age > $limit\n      ^")
    }

    @Test func badImportLinesExitWith8AndImportNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        let cases: [(String, String, String)] = [
            ("bad.jsonl", "{\"name\":\"A\",\"age\":1}\n{\"name\":\"B\",\"age\":\"old\"}\n", "bad.jsonl:2: age needs a whole number"),
            ("syntax.jsonl", "{\"name\":\"A\",\"age\":1}\n\n{\"name\":\n", "syntax.jsonl:3: the line is not valid JSON"),
            ("missing.jsonl", "{\"name\":\"A\",\"age\":1}\n{\"name\":\"B\"}\n", "missing.jsonl:2: the row has no value for the required attribute Person.age"),
            ("key.jsonl", "{\"name\":\"A\",\"agee\":1}\n", "key.jsonl:1: unknown key 'agee'; did you mean 'age'?"),
            ("range.csv", "name,age\nA,1\nB,70000\n", "range.csv:3: age needs a whole number that fits int16"),
            ("fields.csv", "name,age\nA,1,2\n", "fields.csv:2: 3 fields where the header has 2"),
        ]
        for (name, content, message) in cases {
            try content.write(toFile: directory.appending(name), atomically: true, encoding: .utf8)
            try expectFailure(["import", store, "Person", directory.appending(name)], exit: 8, message, "Nothing was imported")
        }
        try "{\"name\":\"Rex\",\"owner\":99}\n".write(toFile: directory.appending("owner.jsonl"), atomically: true, encoding: .utf8)
        try expectFailure(["import", store, "Pet", directory.appending("owner.jsonl")], exit: 8, "owner.jsonl:1:", "does not exist")
        #expect(try Inspector.run(["count", store, "Person"]).stdout == "5\n")
        #expect(try Inspector.run(["count", store, "Pet"]).stdout == "3\n")
    }

    /// A full disk under standard output is an I/O failure (exit 9), not a crash.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aFullDiskUnderStandardOutputExitsWith9() throws {
        for arguments in [["export", Inspector.logStore, "Person"], ["info", Inspector.logStore], ["count", Inspector.logStore, "Person"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Inspector.binary)
            process.arguments = arguments
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let err = Pipe()
            process.standardOutput = full
            process.standardError = err
            try process.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 9, "\(arguments): \(stderr)")
            #expect(stderr.contains("cannot write the output: No space left on device"), "\(stderr)")
        }
    }

    @Test func badValuesAndUnreachableLSNsExitWith10() throws {
        try expectFailure(["info", Inspector.checkpointedStore, "--at", "2"], exit: 10, "no longer reaches LSN 2", "from 5 to 6")
        try expectFailure(["query", Inspector.logStore, "Person", "--at", "99"], exit: 10, "past the end of the log")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        try expectFailure(["update", store, "Person", "--set", "age=old"], exit: 10, "--set age: age needs a whole number")
        try "{\"entities\": [{\"name\": \"X\", \"attributes\": [{\"name\": \"a\", \"type\": \"int128\"}]}]}"
            .write(toFile: directory.appending("bad-schema.json"), atomically: true, encoding: .utf8)
        try expectFailure(["create", directory.appending("new"), "--schema", directory.appending("bad-schema.json")], exit: 10, "int128")
    }
}
