import Dispatch
import Foundation
import Strata
import Synchronization

/// Turns Ctrl-C (SIGINT) into a polite stop: a running asynchronous fetch is cancelled, a
/// running population stops after the current batch insert, and the program closes its
/// store before it exits.
///
/// The handler runs on its own serial queue (a `DispatchSource` signal source), never
/// inside the signal handler itself, so it may take locks and call `cancel()`.
final class Interruption: Sendable {
    private struct State {
        var interrupted = false
        var fetch: AsynchronousFetchResult?
    }

    private let state = Mutex(State())
    // `nonisolated(unsafe)`: written once in `install()` before any signal can be handled,
    // and only kept to hold the source alive.
    nonisolated(unsafe) private var source: (any DispatchSourceSignal)?

    /// Ignores SIGINT's default action (termination) and handles it on a queue instead.
    func install() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "todo.sigint"))
        source.setEventHandler { [self] in
            let fetch = state.withLock { state -> AsynchronousFetchResult? in
                state.interrupted = true
                return state.fetch
            }
            fetch?.cancel()
        }
        source.resume()
        self.source = source
    }

    /// Whether Ctrl-C was pressed.
    var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// Routes Ctrl-C to `fetch` while it runs (`nil` when it is over). A Ctrl-C that came
    /// just before cancels it at once.
    func watch(_ fetch: AsynchronousFetchResult?) {
        let cancelNow = state.withLock { state -> Bool in
            state.fetch = fetch
            return state.interrupted
        }
        if cancelNow { fetch?.cancel() }
    }

    /// Sends SIGINT to this process, exactly as Ctrl-C in a terminal does (`--interrupt-after`).
    func simulateCtrlC() {
        kill(getpid(), SIGINT)
    }
}
