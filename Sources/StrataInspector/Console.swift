import Foundation

/// Standard output (buffered, for large exports) and standard error.
enum Console {
    /// Whether standard error is a terminal (progress bars are drawn only then).
    static let errorIsTerminal = isatty(STDERR_FILENO) == 1

    /// Writes `line` and a newline to standard error.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Standard output, written in blocks of about 64 KiB.
final class OutputBuffer {
    private var pending = ""

    /// Appends `line` and a newline.
    func line(_ line: String) {
        pending += line
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    /// Writes everything pending.
    func flush() {
        guard !pending.isEmpty else { return }
        FileHandle.standardOutput.write(Data(pending.utf8))
        pending = ""
    }

    deinit { if !pending.isEmpty { FileHandle.standardOutput.write(Data(pending.utf8)) } }
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
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)%".utf8))
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled, lastPercent >= 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
