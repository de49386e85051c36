import Foundation
import Synchronization

/// Standard output (buffered, for large exports) and standard error.
enum Console {
    /// Whether standard error is a terminal (progress bars are drawn only then).
    static let errorIsTerminal = isatty(STDERR_FILENO) == 1

    /// Writes `line` and a newline to standard error.
    static func error(_ line: String) {
        writeError(Data((line + "\n").utf8))
    }

    /// Writes `data` to standard error, dropping it when that fails (there is nowhere left
    /// to report the failure).
    static func writeError(_ data: Data) {
        try? FileHandle.standardError.write(contentsOf: data)
    }

    /// The failure of a write to standard output, such as a full disk.
    static func outputFailure(_ error: any Error) -> InspectorFailure {
        let error = error as NSError
        let posix = (error.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap { $0.domain == NSPOSIXErrorDomain ? Int32($0.code) : nil }
        return InspectorFailure(.io, "cannot write the output: \(posix.map { String(cString: strerror($0)) } ?? error.localizedDescription).")
    }
}

/// Standard output, written in blocks of about 64 KiB. The first failed write (a full
/// disk, a closed pipe) stops the output; ``flush()`` throws it.
final class OutputBuffer {
    private var pending = ""
    private var failure: (any Error)?

    /// Appends `line` and a newline.
    func line(_ line: String) {
        guard failure == nil else { return }
        pending += line
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { write() }
    }

    /// Writes everything pending.
    ///
    /// - Throws: ``InspectorFailure`` `.io` when a write to standard output failed.
    func flush() throws {
        write()
        if let failure { throw Console.outputFailure(failure) }
    }

    private func write() {
        guard !pending.isEmpty, failure == nil else { return }
        do { try FileHandle.standardOutput.write(contentsOf: Data(pending.utf8)) } catch { failure = error }
        pending = ""
    }

    deinit { write() }
}

/// A progress bar on standard error, drawn only when it is a terminal.
struct ProgressBar {
    let label: String
    let total: Int
    private var lastPercent = -1
    private let enabled: Bool

    init(_ label: String, total: Int) {
        self.label = label
        self.total = total
        enabled = Console.errorIsTerminal && total > 0
    }

    /// Redraws when the percentage changed.
    mutating func update(_ done: Int) {
        guard enabled else { return }
        let percent = min(100, done * 100 / total)
        guard percent != lastPercent else { return }
        lastPercent = percent
        let filled = percent * 30 / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled)
        Console.writeError(Data("\r\(label) [\(bar)] \(percent)%".utf8))
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled, lastPercent >= 0 else { return }
        Console.writeError(Data("\r\u{1B}[2K".utf8))
    }
}

/// One line of status on standard error while work that reports no progress runs, drawn
/// only when standard error is a terminal; ``clear()`` erases it.
struct StatusLine {
    private let enabled = Console.errorIsTerminal

    init(_ text: String) {
        if enabled { Console.writeError(Data("\r\u{1B}[2K\(text)".utf8)) }
    }

    /// Erases the line.
    func clear() {
        if enabled { Console.writeError(Data("\r\u{1B}[2K".utf8)) }
    }
}

/// A progress bar for work that reports no progress of its own but is dominated by reading
/// files, such as `verify`: a background thread compares the bytes this process has read
/// (`rchar` in `/proc/self/io`) with the bytes the work is expected to read, and holds at
/// 99% until the work returns. Drawn only when standard error is a terminal and the
/// counter exists (Linux).
enum ReadProgress {
    /// Runs `body` while drawing the bar labelled `label` for `expectedBytes` of reading.
    static func run<T>(_ label: String, expectedBytes: Int64, _ body: () throws -> T) rethrows -> T {
        guard Console.errorIsTerminal, expectedBytes > 0, let start = bytesRead() else { return try body() }
        let done = Flag()
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var bar = ProgressBar(label, total: 100)
            while !done.isSet {
                let read = max(0, (bytesRead() ?? start) - start)
                bar.update(Int(min(99, read * 100 / expectedBytes)))
                Thread.sleep(forTimeInterval: 0.1)
            }
            bar.finish()
            stopped.signal()
        }
        defer {
            done.set()
            stopped.wait()
        }
        return try body()
    }

    /// The bytes this process has read so far, or `nil` where the kernel does not say.
    static func bytesRead() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") }) else { return nil }
        return Int64(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces))
    }

    /// A flag set once, read from another thread.
    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }
}
