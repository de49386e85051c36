import Foundation
import StrataTestSupport
import Testing

/// Runs the built `strata` binary and finds the fixtures.
enum Inspector {
    /// What one run of `strata` printed and returned.
    typealias Run = ChildProcessRun

    /// The package's `Fixtures/inspector` folder.
    static let fixtures: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/inspector").path
    }()

    /// The fixture store with a log only (LSN 1…5).
    static var logStore: String { "\(fixtures)/people.strata" }
    /// The fixture store with a snapshot at LSN 5 and one more transaction.
    static var checkpointedStore: String { "\(fixtures)/checkpointed.strata" }

    /// `strata`, next to the test bundle in the build folder (or `$STRATA_BINARY`).
    static let binary: String = {
        if let explicit = ProcessInfo.processInfo.environment["STRATA_BINARY"] { return explicit }
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
        // On Apple platforms the runner is inside the .xctest bundle.
        while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("strata").path
    }()

    /// Runs `strata arguments…` to completion.
    static func run(_ arguments: [String], in directory: String? = nil) throws -> Run {
        try runChildProcess(binary, arguments, in: directory)
    }

    /// Output made comparable across machines: the fixtures path shortened, log times masked.
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: fixtures, with: "Fixtures/inspector")
            .replacing(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/, with: "<time>                  ")
            .replacing(/"time":"<time> +"/, with: "\"time\":\"<time>\"")
    }

    /// A copy of the fixture store `name` in a fresh temporary directory.
    static func copy(_ store: String, into directory: String) throws -> String {
        let target = "\(directory)/\(URL(fileURLWithPath: store).lastPathComponent)"
        try FileManager.default.copyItem(atPath: store, toPath: target)
        return target
    }
}
