import Foundation

/// Runs this same executable as a child process, for figures that an earlier workload in the
/// parent would pollute (resident memory).
enum ChildProcess {
    /// The path of the running executable.
    static var executableURL: URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    }

    /// Runs `strata-bench <arguments>` and returns its standard output.
    ///
    /// - Throws: ``ChildProcessError`` when the child exits with a non-zero status.
    static func runSelf(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executableURL
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw ChildProcessError(arguments: arguments, status: process.terminationStatus,
                                    output: text)
        }
        return text
    }
}

/// A child `strata-bench` process failed.
struct ChildProcessError: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let output: String

    var description: String {
        "strata-bench \(arguments.joined(separator: " ")) exited with status \(status): \(output)"
    }
}
