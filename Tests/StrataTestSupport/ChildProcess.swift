import Foundation

/// A child process that ran to completion: its exit status and what it wrote.
public struct ChildProcessRun: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to standard output, as UTF-8.
    public var stdout: String
    /// Everything written to standard error, as UTF-8.
    public var stderr: String
}

/// Runs `executable` with `arguments` to completion, with an empty standard input, and returns
/// its exit status and output. The output is read before waiting, so a large one cannot fill
/// a pipe and block the child.
///
/// - Parameter directory: the child's working directory (this process's when `nil`).
public func runChildProcess(_ executable: String, _ arguments: [String], in directory: String? = nil) throws -> ChildProcessRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ChildProcessRun(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                           stderr: String(decoding: stderr, as: UTF8.self))
}
