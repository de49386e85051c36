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
}
