import Dispatch
import Foundation

/// How the long-running commands (`strata replicate`, `strata follow`) wait to be stopped.
enum Signals {
    /// Blocks until SIGINT or SIGTERM arrives, calling `tick` every `interval` meanwhile
    /// (a command's progress line).
    static func waitForInterrupt(every interval: TimeInterval? = nil, tick: () -> Void = {}) {
        let arrived = DispatchSemaphore(value: 0)
        let sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { arrived.signal() }
            source.resume()
            return source
        }
        if let interval {
            while arrived.wait(timeout: .now() + interval) == .timedOut { tick() }
        } else {
            arrived.wait()
        }
        for source in sources { source.cancel() }
    }

    /// Where a long-running command stands: a position (an LSN), the line that reports it,
    /// and the last error, if any.
    struct Progress {
        var position: UInt64
        var line: String
        var error: String?
    }

    /// Blocks until SIGINT or SIGTERM arrives, printing `progress()`'s line whenever its
    /// position moves (at most once per `milliseconds`) and each new error on standard error.
    static func waitForInterrupt(reportingEvery milliseconds: Int, _ progress: () -> Progress) {
        var reported = progress().position
        var reportedError: String?
        waitForInterrupt(every: Double(max(10, milliseconds)) / 1000) {
            let now = progress()
            if now.position != reported {
                reported = now.position
                print(now.line)
            }
            if let error = now.error, error != reportedError { Console.error("strata: \(error)") }
            reportedError = now.error
            fflush(nil)
        }
    }
}
