import ArgumentParser
import Foundation

/// `strata-bench rss-probe`: run by the benchmark itself in a child process. Opens one store
/// or database, counts its to-do items, and prints its own resident memory as JSON.
struct RSSProbe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rss-probe",
        abstract: "Internal: prints VmRSS as JSON after opening a store and counting (run in a child process).",
        shouldDisplay: false)

    /// Which engine opens the data.
    enum Engine: String, ExpressibleByArgument, CaseIterable, Sendable {
        case strata, sqlite
    }

    /// What the probe does after opening, before reading its memory.
    enum Phase: String, ExpressibleByArgument, CaseIterable, Sendable {
        /// Nothing more: resident memory after open + count.
        case open
        /// Fetches every to-do item (Strata: objects, reading `name`; SQLite: GRDB records)
        /// and keeps them.
        case fullFetch = "full-fetch"
        /// Fetches the IDs of every item sorted by `createdAt` asynchronously (Strata: the
        /// asynchronous fetch; SQLite: GRDB's `async` read of `SELECT id … ORDER BY createdAt`);
        /// the figure to read is the peak.
        case asyncSorted = "async-sorted"
    }

    /// What the probe prints.
    struct Report: Codable {
        var engine: String
        /// VmRSS after opening and counting, in bytes.
        var residentBytes: Int?
        /// VmRSS before opening, in bytes: the runtime's own share.
        var baselineBytes: Int?
        var count: Int?
        /// VmHWM at the end, in bytes: the peak over the process's life.
        var peakBytes: Int?
        /// What the phase fetched (objects, records or IDs).
        var fetched: Int?
    }

    @Option(help: "What to do after opening: open, full-fetch or async-sorted.")
    var phase: Phase = .open

    @Option(help: "The engine that opens the data.")
    var engine: Engine

    @Option(help: "The Strata store directory or the SQLite file.")
    var path: String

    @Flag(help: "Open the Strata store with the harness's test key (an encrypted run's fixture).")
    var encrypted = false

    func run() async throws {
        try await BenchEncryption.$key.withValue(encrypted ? BenchEncryption.testKey : nil) {
            try await probe()
        }
    }

    /// Opens, runs the phase and prints the report.
    private func probe() async throws {
        var report = Report(engine: engine.rawValue)
        report.baselineBytes = ResidentSetSize.current()
        var keepAlive: [AnyObject] = []
        switch engine {
        case .sqlite:
            report.count = try ResidentMemory.sqliteOpenAndCount(path: path, keepAlive: &keepAlive)
        case .strata:
            report.count = try await ResidentMemory.strataOpenAndCount(
                directory: URL(fileURLWithPath: path), keepAlive: &keepAlive)
        }
        switch (engine, phase) {
        case (_, .open): break
        case (.sqlite, _):
            report.fetched = try await MemoryProbes.sqliteFetch(phase, keepAlive: &keepAlive)
        case (.strata, _):
            report.fetched = try await MemoryProbes.strataFetch(phase, keepAlive: &keepAlive)
        }
        report.residentBytes = ResidentSetSize.current()
        report.peakBytes = ResidentSetSize.peak()
        withExtendedLifetime(keepAlive) {}
        let data = try JSONEncoder().encode(report)
        print(String(decoding: data, as: UTF8.self))
    }
}
