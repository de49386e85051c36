import Foundation

/// The PostgreSQL server the benchmark runs against, and `psql` for the baselines.
final class BenchServer {
    let url: String
    let version: String
    private let ownDirectory: String?
    let psql: String

    private init(url: String, version: String, ownDirectory: String?, psql: String) {
        self.url = url
        self.version = version
        self.ownDirectory = ownDirectory
        self.psql = psql
    }

    /// `url`, or a throwaway server started with `scripts/postgres-server`.
    static func start(url: String?) throws -> BenchServer {
        guard let bin = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
            .sorted(by: { $0.compare($1, options: .numeric) == .orderedAscending }).last.map({ "/usr/lib/postgresql/\($0)/bin" }) else {
            fail("no PostgreSQL under /usr/lib/postgresql (scripts/ensure-deps --postgres installs it)")
        }
        var own: String?
        var target = url
        if target == nil {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../scripts/postgres-server").standardized.path
            let directory = try run("/bin/bash", [script, "start"]).trimmingCharacters(in: .whitespacesAndNewlines)
            own = directory
            target = try String(contentsOfFile: "\(directory)/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let server = BenchServer(url: target!, version: "", ownDirectory: own, psql: "\(bin)/psql")
        let version = try server.sql("SHOW server_version").trimmingCharacters(in: .whitespacesAndNewlines)
        return BenchServer(url: target!, version: version, ownDirectory: own, psql: "\(bin)/psql")
    }

    func stop() {
        guard let ownDirectory else { return }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../scripts/postgres-server").standardized.path
        _ = try? Self.run("/bin/bash", [script, "stop", ownDirectory])
    }

    /// Runs `statement` with psql, returning its unaligned output.
    @discardableResult
    func sql(_ statement: String, input: String? = nil) throws -> String {
        try Self.run(psql, [url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", statement], input: input)
    }

    /// Runs a command to completion and returns its standard output; fails on a non-zero exit.
    /// `posix_spawn` and `waitpid`, output through temporary files: Foundation's `Process`
    /// never returned from `waitUntilExit()` after `postgres-server start`, whose server
    /// outlives the script.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
        let base = "\(NSTemporaryDirectory())/strata-repl-bench-\(UUID().uuidString)"
        defer { for suffix in [".out", ".err"] { try? FileManager.default.removeItem(atPath: base + suffix) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var cArguments: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, &cArguments, environ)
        guard spawned == 0 else { fail("could not run \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        guard status == 0 else {
            fail("\(executable) \(arguments.joined(separator: " ")) failed: \((try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")")
        }
        return output
    }
}

/// Percentiles and formatting.
enum Stats {
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank]
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
    static func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / b) }
}

/// A monotonic clock in seconds.
func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
