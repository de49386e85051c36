import Foundation
import Testing

/// A running `StrataLockProbe` process (see `Tests/StrataLockProbe/main.swift`): it tries to
/// open a store for writing, prints `won`, `locked` or `error: …`, and, when it won, holds the
/// store open until its standard input is closed.
final class LockProbe {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// Starts a probe on `directory`.
    init(executable: URL, directory: String) throws {
        process.executableURL = executable
        process.arguments = [directory]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// The probe's first line of output, without the newline (empty if it exits silently).
    func firstLine() -> String {
        var line: [UInt8] = []
        let reader = output.fileHandleForReading
        while let data = try? reader.read(upToCount: 1), let byte = data.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Closes the probe's standard input (a winner then closes the store and exits) and
    /// waits for it to exit.
    ///
    /// - Returns: its exit status.
    @discardableResult
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The probe binary, built next to the test bundle (`.build/<triple>/debug/`), or `nil`.
    ///
    /// Looks in the directory of `CommandLine.arguments[0]`, of `Bundle.main`'s executable and
    /// bundle, and their parents (on Darwin the tests run inside an `.xctest` bundle).
    static func executable() -> URL? {
        var directories: [URL] = []
        let argument0 = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        directories.append(argument0.deletingLastPathComponent())
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        let bundle = URL(fileURLWithPath: Bundle.main.bundlePath)
        directories += [bundle, bundle.deletingLastPathComponent()]
        var candidates: [URL] = []
        for directory in directories {
            candidates.append(directory.appendingPathComponent("StrataLockProbe"))
            var parent = directory
            for _ in 0..<4 {
                parent = parent.deletingLastPathComponent()
                candidates.append(parent.appendingPathComponent("StrataLockProbe"))
            }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Like ``executable()``, but records a clear test failure when the binary is missing.
    static func requireExecutable() throws -> URL {
        guard let url = executable() else {
            Issue.record("StrataLockProbe was not found next to the test bundle (\(CommandLine.arguments[0])). Build it with `swift build --build-tests` before running the tests with --skip-build.")
            throw ProbeMissing()
        }
        return url
    }

    /// Thrown after ``requireExecutable()`` recorded its failure.
    struct ProbeMissing: Error {}
}
