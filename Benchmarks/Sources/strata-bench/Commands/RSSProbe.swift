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

    /// What the probe prints.
    struct Report: Codable {
        var engine: String
        /// VmRSS after opening and counting, in bytes.
        var residentBytes: Int?
        /// VmRSS before opening, in bytes: the runtime's own share.
        var baselineBytes: Int?
        var count: Int?
    }

    @Option(help: "The engine that opens the data.")
    var engine: Engine

    @Option(help: "The Strata store directory or the SQLite file.")
    var path: String

    func run() async throws {
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
        report.residentBytes = ResidentSetSize.current()
        withExtendedLifetime(keepAlive) {}
        let data = try JSONEncoder().encode(report)
        print(String(decoding: data, as: UTF8.self))
    }
}
