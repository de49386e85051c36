import Foundation
import Testing
@testable import StrataReplication

/// Where the fault tests make their faults: a network lab (`scripts/netns-lab`: PostgreSQL in
/// a namespace of its own, one link for the primary and one for the replica) when this
/// machine allows namespaces, else a throwaway server of the test's own
/// (`scripts/postgres-server`), whose connections are closed instead: never the suite's
/// shared server, which other suites use at the same time.
final class FaultLab: CustomStringConvertible, Sendable {
    enum Link: String { case primary, replica }

    /// The lab's directory, or `nil` in the fallback.
    let directory: String?
    /// The fallback server's directory.
    let serverDirectory: String?
    let primaryURL: String
    let replicaURL: String
    /// Why the lab could not be made (the fallback's reason).
    let fallbackReason: String?

    /// Whether cutting one link leaves the other up (only in a lab).
    var isolatesLinks: Bool { directory != nil }
    /// Whether killing the server stops it until it is restarted (only in a lab; the fallback
    /// closes connections, which the clients reopen at once).
    var stopsServer: Bool { directory != nil }

    var description: String {
        if let directory { return "ran in network namespaces (lab \(directory): links cut with `ip link set … down`, the server killed with SIGKILL)" }
        return "ran without network namespaces (\(fallbackReason ?? "")): faults made by closing every connection to a server of its own"
    }

    private init(directory: String?, serverDirectory: String? = nil, primaryURL: String, replicaURL: String, fallbackReason: String?) {
        self.directory = directory
        self.serverDirectory = serverDirectory
        self.primaryURL = primaryURL
        self.replicaURL = replicaURL
        self.fallbackReason = fallbackReason
    }

    /// The repository's `scripts/` directory.
    static let scripts: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("scripts").path
    }()

    /// A lab, or the fallback (a server of its own). `STRATA_NETNS=0` forces the fallback.
    static func make() throws -> FaultLab {
        _ = try TestServer.requireURL()
        var reason = "STRATA_NETNS=0"
        if ProcessInfo.processInfo.environment["STRATA_NETNS"] != "0" {
            let check = try run(["check"])
            if check.status == 0 { return try makeLab() }
            reason = check.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let server = try run(["start"], script: "postgres-server")
        try #require(server.status == 0, "scripts/postgres-server start failed: \(server.output)")
        let serverDirectory = server.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let url = try String(contentsOfFile: "\(serverDirectory)/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return FaultLab(directory: nil, serverDirectory: serverDirectory, primaryURL: url, replicaURL: url, fallbackReason: reason)
    }

    private static func makeLab() throws -> FaultLab {
        let started = try run(["start"])
        try #require(started.status == 0, "scripts/netns-lab start failed: \(started.output)")
        let directory = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return FaultLab(directory: directory, primaryURL: try read("primary-url"), replicaURL: try read("replica-url"), fallbackReason: nil)
    }

    /// Cuts `link` (in the fallback: closes every connection).
    func cut(_ link: Link) throws {
        guard let directory else { return try closeConnections() }
        try Self.expectSuccess(["cut", directory, link.rawValue])
    }

    /// Brings `link` back (nothing to do in the fallback).
    func heal(_ link: Link) throws {
        guard let directory else { return }
        try Self.expectSuccess(["heal", directory, link.rawValue])
    }

    /// Kills the server and every process of it with SIGKILL (in the fallback: closes every
    /// connection).
    func killServer() throws {
        guard let directory else { return try closeConnections() }
        try Self.expectSuccess(["kill", directory])
    }

    /// Starts the killed server again.
    func restartServer() throws {
        guard let directory else { return }
        try Self.expectSuccess(["restart", directory])
    }

    /// Stops the server and removes the namespace and the directory.
    func close() {
        if let directory { _ = try? Self.run(["stop", directory]) }
        if let serverDirectory { _ = try? Self.run(["stop", serverDirectory], script: "postgres-server") }
    }

    private func closeConnections() throws {
        let session = try PostgresSession.connect(PostgresLocation(primaryURL))
        defer { session.close() }
        try session.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()",
                        "Closing every other connection")
    }

    private static func expectSuccess(_ arguments: [String]) throws {
        let result = try run(arguments)
        try #require(result.status == 0, "scripts/netns-lab \(arguments.joined(separator: " ")) failed: \(result.output)")
    }

    /// Runs a script of `scripts/` (bounded: they make no network calls of their own) with
    /// `posix_spawn` and `waitpid`, its output in a temporary file. Foundation's `Process`
    /// is not used here: its `waitUntilExit()` never returned after `netns-lab start`, whose
    /// server outlives the script.
    private static func run(_ arguments: [String], script: String = "netns-lab") throws -> (status: Int32, output: String) {
        let outputPath = "\(NSTemporaryDirectory())/strata-lab-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ["/bin/bash", "\(scripts)/\(script)"] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, &cArguments, environ)
        try #require(spawned == 0, "could not run scripts/\(script): \(String(cString: strerror(spawned)))")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS by hand (macros in C).
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : -1, output)
    }
}
