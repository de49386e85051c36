public import Foundation
import StrataStorage

/// The handle of a running asynchronous fetch: its progress, its outcome, and a way to
/// cancel it (Core Data's `NSAsynchronousFetchResult`).
///
/// `@unchecked Sendable`: the mutable outcome is written once, on the context's queue,
/// before the completion handler runs, and read there; the progress updates go through
/// a mutex-guarded continuation list, and whether the fetch was cancelled or completed is
/// decided once, under a lock.
public final class AsynchronousFetchResult: @unchecked Sendable {
    /// Foundation progress in units of work (see ``FetchProgress``): `fractionCompleted`
    /// is the share of the work done, through the scan, the sort and building the results.
    /// `cancel()` on it stops the fetch. (``FetchProgress/found`` has the records found.)
    public let progress: Progress
    /// The results, set on the context's queue when the fetch completes (`nil` when it was
    /// cancelled or failed). Read it on the context's queue.
    public private(set) var finalResult: FetchedResults?
    /// The object IDs of the results, in order (`nil` until completed).
    public private(set) var objectIDs: [ObjectID]?
    /// The number of results (`nil` until completed).
    public private(set) var count: Int?
    /// Dictionary results, for a request whose result type asks for them.
    public private(set) var dictionaries: [[String: AttributeValue]]?
    /// Why the fetch produced no result (`.cancelled` when cancelled).
    public private(set) var operationError: StrataError?

    /// The progress stream's state under one lock, so that a subscriber arriving while an
    /// update is delivered neither misses it nor waits forever for an end already past.
    struct StreamState {
        var continuations: [UUID: AsyncStream<FetchProgress>.Continuation] = [:]
        var last: FetchProgress?
        /// Set once the fetch finished, failed or was cancelled: no update follows.
        var ended = false
    }
    let stream = Locked(StreamState())

    /// How the fetch ended, decided once: a `cancel()` after completion changes nothing,
    /// and a completion after `cancel()` does not happen.
    enum Ending { case running, cancelled, completed }
    private let ending = Locked(Ending.running)

    init(totalRows: Int) {
        progress = Progress(totalUnitCount: Int64(totalRows))
        // `progress.cancel()` called directly cancels the fetch as `cancel()` does.
        progress.cancellationHandler = { [weak self] in self?.markCancelled() }
    }

    /// Stops the fetch: whatever it is doing (scanning, sorting, building the results or
    /// waiting for the context's queue), it notices within
    /// ``AsynchronousFetchRequest/maximumUnitsBetweenUpdates`` units of work, and the
    /// completion then gets `.cancelled`. No progress update follows, and none claims the
    /// fetch finished. Once the fetch has completed, `cancel()` does nothing.
    public func cancel() {
        if markCancelled() { progress.cancel() }
    }

    /// Records the cancellation unless the fetch already completed; returns whether it did.
    @discardableResult
    private func markCancelled() -> Bool {
        ending.withLock { ending in
            if ending == .running { ending = .cancelled }
            return ending == .cancelled
        }
    }

    /// Whether the fetch was cancelled (never true for a fetch that completed).
    public var isCancelled: Bool {
        // `progress.cancel()` may run its handler later; its flag is set at once.
        if progress.isCancelled { return markCancelled() }
        return ending.withLock { $0 == .cancelled }
    }

    /// Decides that the fetch completes, unless it was cancelled first; returns whether it
    /// completes. After this, `cancel()` does nothing.
    func claimCompletion() -> Bool {
        if progress.isCancelled { markCancelled() }
        return ending.withLock { ending in
            if ending == .running { ending = .completed }
            return ending == .completed
        }
    }

    /// Progress updates from now on (starting with the latest one, when there is one), as
    /// an asynchronous sequence that ends when the fetch completes, fails or is cancelled.
    public var progressUpdates: AsyncStream<FetchProgress> {
        let (updates, continuation) = AsyncStream<FetchProgress>.makeStream(bufferingPolicy: .unbounded)
        stream.withLock { state in
            if let last = state.last { continuation.yield(last) }
            if state.ended { continuation.finish() } else { state.continuations[UUID()] = continuation }
        }
        return updates
    }

    func report(_ update: FetchProgress, to handler: (@Sendable (FetchProgress) -> Void)?) {
        progress.completedUnitCount = Int64(update.completedUnits)
        handler?(update)
        stream.withLock { state in
            state.last = update
            for continuation in state.continuations.values {
                continuation.yield(update)
                if update.isFinished { continuation.finish() }
            }
            if update.isFinished {
                state.ended = true
                state.continuations.removeAll()
            }
        }
    }

    /// Ends the progress stream (a failed or cancelled fetch, whose last update is not final).
    func finishStream() {
        stream.withLock { state in
            state.ended = true
            for continuation in state.continuations.values { continuation.finish() }
            state.continuations.removeAll()
        }
    }

    func complete(objects: FetchedResults?, ids: [ObjectID]?, count: Int?, dictionaries: [[String: AttributeValue]]?) {
        finalResult = objects
        objectIDs = ids
        self.count = count
        self.dictionaries = dictionaries
    }

    func fail(_ error: StrataError) { operationError = error }
}
