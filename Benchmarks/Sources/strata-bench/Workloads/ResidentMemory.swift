import Foundation
import Strata

/// Issue 8, item 10: resident memory (VmRSS) of a fresh process after opening the N-item
/// to-do store and counting its items, against the same for the SQLite file through GRDB.
/// Target: ≤ 100 MB (issue 3).
///
/// Measured in a child process (`strata-bench rss-probe`), so nothing the parent did earlier
/// counts.
enum ResidentMemory {
    static let workload = Workload(
        name: "resident-memory", group: "memory", item: 10,
        summary: "VmRSS of a new process after opening the N-item store + count | same for GRDB",
        unit: .bytes, target: .ratioAtMost(1.5),
        strata: strata, sqlite: .measured(sqlite),
        best: SQLiteBest(.sameAsRecords, how: "open + SELECT COUNT(*) in a new process (the records side's figure)"),
        perObject: false)

    /// Copies the to-do store (not timed) and runs the probe on it in a child process.
    static func strata(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.todoStore(for: run)
        return try probe(engine: .strata, path: store.path)
    }

    /// Runs in the child process: opens the store in `directory` read-write with the
    /// application's schema, as an application would, and returns its `TodoItem` count. The
    /// store stays open (in `keepAlive`) while the probe reads VmRSS.
    static func strataOpenAndCount(directory: URL, keepAlive: inout [AnyObject]) async throws -> Int {
        let store = try PersistentStore.open(
            at: directory.path, schema: StrataFixtures.todoSchema, options: StrataFixtures.options)
        keepAlive.append(store)
        return StrataFixtures.todoCount(store)
    }

    /// Runs `strata-bench rss-probe` on `path` (with `--encrypted` during an encrypted run) and
    /// returns the resident bytes it reports.
    static func probe(engine: RSSProbe.Engine, path: String, phase: RSSProbe.Phase = .open,
                      peak: Bool = false) throws -> Double {
        // An encrypted run's fixture needs the key in the child too.
        let encrypted = engine == .strata && BenchEncryption.isOn ? ["--encrypted"] : []
        let output = try ChildProcess.runSelf(
            ["rss-probe", "--engine", engine.rawValue, "--path", path, "--phase", phase.rawValue] + encrypted)
        let report = try JSONDecoder().decode(RSSProbe.Report.self, from: Data(output.utf8))
        guard let bytes = peak ? report.peakBytes : report.residentBytes else {
            throw ChildProcessError(arguments: ["rss-probe"], status: 0, output: output)
        }
        if let baseline = report.baselineBytes {
            log("rss-probe \(engine.rawValue): \(MetricUnit.bytes.format(Double(baseline))) before opening, "
                + "\(MetricUnit.bytes.format(Double(bytes))) after opening and counting \(report.count ?? 0), "
                + "phase \(phase.rawValue) (\(report.fetched ?? 0) fetched), peak \(MetricUnit.bytes.format(Double(report.peakBytes ?? 0)))")
        }
        return Double(bytes)
    }
}
