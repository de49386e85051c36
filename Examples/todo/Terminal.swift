import Foundation

/// Small helpers for terminal output: number formatting, timings and a progress bar.
enum Terminal {
    /// Whether standard error is a terminal (progress bars only make sense there).
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1
    /// Whether standard output is a terminal.
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1

    /// Writes `text` to standard error, unbuffered.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Writes `text` and a newline to standard output, unbuffered, so lines interleave
    /// correctly with standard error and with output written from other threads.
    static func out(_ text: String, terminator: String = "\n") {
        FileHandle.standardOutput.write(Data((text + terminator).utf8))
    }

    /// `1234567` as `"1,234,567"`, whatever the locale.
    static func grouped<I: BinaryInteger>(_ value: I) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// Milliseconds with one decimal, grouped: `"1,234.5 ms"`.
    static func ms(_ duration: Duration) -> String {
        let value = milliseconds(duration)
        let tenths = Int((value * 10).rounded())
        return "\(grouped(tenths / 10)).\(tenths % 10) ms"
    }

    /// A duration in milliseconds.
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    /// Runs `body` and returns its result and how long it took.
    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try body()
        return (value, start.duration(to: clock.now))
    }
}

/// A progress bar on standard error: redrawn in place on a terminal, a line every 20 %
/// otherwise (so logs stay short).
struct ProgressBar {
    let total: Int
    let unit: String
    private var lastPercentLine = -1

    init(total: Int, unit: String) {
        self.total = total
        self.unit = unit
    }

    mutating func update(_ done: Int) {
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let percent = Int(fraction * 100)
        if Terminal.stderrIsTTY {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            Terminal.error("\r  [\(bar)] \(String(percent).leftPadded(3))%  "
                           + "\(Terminal.grouped(done)) / \(Terminal.grouped(total)) \(unit)")
        } else if percent / 20 > lastPercentLine / 20 || (done == total && lastPercentLine < 100) {
            lastPercentLine = percent
            Terminal.error("  \(Terminal.grouped(done)) / \(Terminal.grouped(total)) \(unit) (\(percent)%)\n")
        }
    }

    /// Ends the bar's line on a terminal.
    func finish() {
        if Terminal.stderrIsTTY { Terminal.error("\n") }
    }
}

extension String {
    /// The string right-aligned in `width` characters.
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
