public import Foundation
import Synchronization

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

    let updates = Mutex<[UUID: AsyncStream<FetchProgress>.Continuation]>([:])
    let lastProgress = Mutex<FetchProgress?>(nil)

    init(totalRows: Int) {
        progress = Progress(totalUnitCount: Int64(totalRows))
    }

    /// Stops the fetch within one chunk; the completion then gets `.cancelled`.
    public func cancel() { progress.cancel() }

    /// Whether the fetch was cancelled.
    public var isCancelled: Bool { progress.isCancelled }

    /// Progress updates from now on, as an asynchronous sequence that ends with the fetch.
    public var progressUpdates: AsyncStream<FetchProgress> {
        let (stream, continuation) = AsyncStream<FetchProgress>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        let finished: Bool = lastProgress.withLock { last in
            if let last { continuation.yield(last) }
            return last?.isFinished == true
        }
        if finished { continuation.finish() } else { updates.withLock { $0[id] = continuation } }
        return stream
    }

    func report(_ update: FetchProgress, to handler: (@Sendable (FetchProgress) -> Void)?) {
        progress.completedUnitCount = Int64(update.found)
        lastProgress.withLock { $0 = update }
        handler?(update)
        let continuations = updates.withLock { Array($0.values) }
        for continuation in continuations {
            continuation.yield(update)
            if update.isFinished { continuation.finish() }
        }
        if update.isFinished { updates.withLock { $0.removeAll() } }
    }

    func finishStream() {
        let continuations = updates.withLock { dict -> [AsyncStream<FetchProgress>.Continuation] in
            defer { dict.removeAll() }
            return Array(dict.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    func complete(objects: FetchedResults?, ids: [ObjectID]?, count: Int?, dictionaries: [[String: AttributeValue]]?) {
        finalResult = objects
        objectIDs = ids
        self.count = count
        self.dictionaries = dictionaries
    }

    func fail(_ error: StrataError) { operationError = error }
}
