import Foundation
import StrataTestSupport
import Testing

/// Read-only commands change no file; every command has help with an example.
@Suite struct ReadOnlyTests {
    @Test func readOnlyCommandsChangeNoFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.checkpointedStore, into: directory.path)
        func snapshot() throws -> [String: Data] {
            let names = try FileManager.default.contentsOfDirectory(atPath: store)
            return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: URL(fileURLWithPath: "\(store)/\($0)"))) })
        }
        let before = try snapshot()
        for arguments in [["info", store], ["schema", store], ["export", store, "Person"], ["query", store, "Pet"],
                          ["count", store, "Person"], ["log", store], ["verify", store, "--deep"], ["stats", store],
                          ["info", store, "--at", "5"]] {
            #expect(try Inspector.run(arguments).status == 0, "\(arguments)")
        }
        #expect(try snapshot() == before)
    }

    /// A torn final write is reported, but only the next writable open cuts it off.
    @Test func readOnlyCommandsLeaveATornTailInPlace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        let segment = URL(fileURLWithPath: "\(store)/wal-00000000000000000001.log")
        let torn = try Data(contentsOf: segment).dropLast(7)
        try Data(torn).write(to: segment)
        for arguments in [["info", store], ["query", store, "Person"], ["count", store, "Person"], ["export", store, "Pet"],
                          ["log", store], ["stats", store]] {
            let run = try Inspector.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        let verify = try Inspector.run(["verify", store, "--deep"])
        #expect(verify.status == 0 && verify.stdout.contains("warning") && verify.stdout.contains("torn"), "\(verify.stdout)")
        #expect(try Data(contentsOf: segment) == Data(torn))
    }

    @Test(arguments: ["info", "schema", "create", "import", "export", "query", "count", "update", "delete", "log",
                      "verify", "checkpoint", "stats", "encrypt", "decrypt", "rotate-key"])
    func everyCommandHasHelpWithAnExample(_ command: String) throws {
        let run = try Inspector.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Example"))
        #expect(run.stdout.contains("strata \(command)"))
    }

    @Test func versionAndExitCodeTable() throws {
        let version = try Inspector.run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("strata "))
        let help = try Inspector.run(["--help"])
        #expect(help.stdout.contains("Exit codes:"))
        #expect(help.stdout.contains("8  bad import line"))
    }
}
