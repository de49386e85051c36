import Foundation
import Strata
import Synchronization

/// Issue 5: how an asynchronous fetch behaves on the 1M-row to-do store — the object IDs of
/// every item sorted by `createdAt`, the seed tutorial's fetch. Four figures, each its own
/// benchmark so each gets a median and a verdict: the delay to the first progress update,
/// the most rows scanned between two updates, the delay from `cancel()` to the fetch
/// reporting its cancellation, and the total time against the same fetch made synchronously
/// in the same run. (Against SQLite, the asynchronous fetch is workload 4's
/// `predicate-ids-async`.)
enum AsyncFetchResponsiveness {
    static let firstProgress = StorageBenchmark(
        name: "async-first-progress",
        summary: "async fetch of 1M sorted IDs: start → first progress update",
        unit: .seconds, target: .atMost(0.010), limit: nil, measure: measureFirstProgress)

    static let progressGap = StorageBenchmark(
        name: "async-progress-gap",
        summary: "async fetch of 1M sorted IDs: most rows scanned between two updates",
        unit: .rows, target: .atMost(65_536), limit: nil, measure: measureProgressGap)

    static let cancellation = StorageBenchmark(
        name: "async-cancel",
        summary: "async fetch of 1M sorted IDs: cancel() → cancellation reported",
        unit: .seconds, target: .atMost(0.010), limit: nil, measure: measureCancellation)

    static let overSynchronous = StorageBenchmark(
        name: "async-vs-sync",
        summary: "async fetch of 1M sorted IDs, total time ÷ the same fetch made synchronously",
        unit: .ratio, target: .atMost(1.2), limit: nil, measure: measureOverSynchronous)

    /// Every item's ID, sorted by creation date: the scan the four figures watch.
    static func sortedByCreation() -> FetchRequest {
        var request = FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])
        request.resultType = .objectIDs
        return request
    }

    /// What one watched fetch saw: when each update arrived and how far the scan had got.
    struct Watch: Sendable {
        var started = ContinuousClock.now
        var updates: [(at: ContinuousClock.Instant, scanned: Int)] = []
    }

    /// Runs the fetch to completion with a progress handler, checking its result.
    static func watchedFetch(_ run: RunContext) async throws -> Watch {
        let store = try await StrataFixtures.openTodoStore(for: run)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        let watch = Mutex(Watch())
        let request = sortedByCreation()
        watch.withLock { $0.started = Stopwatch.now }
        let ids = try await context.fetchObjectIDs(request) { progress in
            let now = Stopwatch.now
            watch.withLock { $0.updates.append((now, progress.scanned)) }
        }
        precondition(ids.count == run.scale, "expected \(run.scale) IDs, got \(ids.count)")
        return watch.withLock { $0 }
    }

    static func measureFirstProgress(_ run: RunContext) async throws -> Double {
        let watch = try await watchedFetch(run)
        guard let first = watch.updates.first else { preconditionFailure("no progress update") }
        return (first.at - watch.started).seconds
    }

    static func measureProgressGap(_ run: RunContext) async throws -> Double {
        let watch = try await watchedFetch(run)
        var previous = 0
        var widest = 0
        for update in watch.updates {
            widest = max(widest, update.scanned - previous)
            previous = update.scanned
        }
        precondition(previous == run.scale, "the last update saw \(previous) of \(run.scale) rows")
        return Double(widest)
    }

    /// Starts the fetch and, from its own progress handler once a quarter of the rows are
    /// scanned (mid-scan, busy), cancels the awaiting task; times from that `cancel()` until
    /// the task gets the cancellation error.
    static func measureCancellation(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        let quarter = run.scale / 4
        let handle = Mutex<Task<[ObjectID], any Error>?>(nil)
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        let task = Task {
            try await context.fetchObjectIDs(sortedByCreation()) { progress in
                guard progress.scanned >= quarter, let task = handle.withLock({ $0 }) else { return }
                let first = cancelledAt.withLock { at -> Bool in
                    guard at == nil else { return false }
                    at = Stopwatch.now
                    return true
                }
                if first { task.cancel() }
            }
        }
        handle.withLock { $0 = task }
        var acknowledged: ContinuousClock.Instant?
        do {
            _ = try await task.value
        } catch let error as StrataError where error.code == .cancelled {
            acknowledged = Stopwatch.now
        }
        guard let acknowledged, let cancelled = cancelledAt.withLock({ $0 }) else {
            preconditionFailure("the fetch finished before it could be cancelled")
        }
        return (acknowledged - cancelled).seconds
    }

    static func measureOverSynchronous(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        let request = sortedByCreation()
        let synchronous = try context.performAndWait {
            try Stopwatch.seconds { _ = try context.fetchObjectIDs(request) }
        }
        let asynchronous = try await Stopwatch.secondsAwaiting {
            try await context.fetchObjectIDs(request, progress: nil).count
        }
        return asynchronous / synchronous
    }
}
