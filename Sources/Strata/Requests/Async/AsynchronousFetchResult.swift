public import Foundation
import StrataStorage

/// The handle of a running asynchronous fetch: its progress, its outcome, and a way to
/// cancel it (Core Data's `NSAsynchronousFetchResult`).
///
/// `@unchecked Sendable`: the mutable outcome is written once, on the context's queue,
/// before the completion handler runs, and read there; the progress updates go through
/// a mutex-guarded continuation list.
public final class AsynchronousFetchResult: @unchecked Sendable {
    /// Foundation progress: `completedUnitCount` is the records found so far and
    /// `totalUnitCount` the rows to scan. `cancel()` on it stops the fetch.
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

    init(totalRows: Int) {
        progress = Progress(totalUnitCount: Int64(totalRows))
    }

    /// Stops the fetch within one chunk; the completion then gets `.cancelled`.
    public func cancel() { progress.cancel() }

    /// Whether the fetch was cancelled.
    public var isCancelled: Bool { progress.isCancelled }

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
        progress.completedUnitCount = Int64(update.found)
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
