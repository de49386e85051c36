import Foundation
import Strata
import Synchronization

/// Issues 5 and 16: how an asynchronous fetch behaves on the 1M-row to-do store — the object
/// IDs of every item sorted by `createdAt`, the seed tutorial's fetch. Five figures, each its
/// own benchmark so each gets a median and a verdict: the delay to the first progress update,
/// the most units of work between two updates, the share of the wall time covered by updates,
/// the worst delay from `cancel()` to the fetch reporting its cancellation over cancellations
/// at random moments of the whole fetch (scan, sort, building the IDs, the hop to the
/// context's queue), and the total time against the same fetch made synchronously in the same
/// run. (Against SQLite, the asynchronous fetch is workload 4's `predicate-ids-async`.)
enum AsyncFetchResponsiveness {
    static let firstProgress = StorageBenchmark(
        name: "async-first-progress",
        summary: "async fetch of 1M sorted IDs: start → first progress update",
        unit: .seconds, target: .atMost(0.010), limit: nil, measure: measureFirstProgress)

    static let progressGap = StorageBenchmark(
        name: "async-progress-gap",
        summary: "async fetch of 1M sorted IDs: most units of work (rows scanned, matches sorted, IDs built) between two updates",
        unit: .rows, target: .atMost(Double(AsynchronousFetchRequest.maximumUnitsBetweenUpdates)), limit: nil,
        measure: measureProgressGap)

    static let progressCoverage = StorageBenchmark(
        name: "async-progress-coverage",
        summary: "async fetch of 1M sorted IDs: share of the wall time within 10 ms of a progress update",
        unit: .share, target: .atLeast(0.95), limit: nil, measure: measureProgressCoverage)

    static let cancellation = StorageBenchmark(
        name: "async-cancel-worst",
        summary: "async fetch of 1M sorted IDs: worst cancel() → cancellation reported, over 16 random moments of the whole fetch",
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

    /// What one watched fetch saw: when it started and ended, and when each update arrived
    /// with how much work it reported.
    struct Watch: Sendable {
        var started = ContinuousClock.now
        var ended = ContinuousClock.now
        var updates: [(at: ContinuousClock.Instant, units: Int, scanned: Int)] = []
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
            watch.withLock { $0.updates.append((now, progress.completedUnits, progress.scanned)) }
        }
        let ended = Stopwatch.now
        precondition(ids.count == run.scale, "expected \(run.scale) IDs, got \(ids.count)")
        return watch.withLock { $0.ended = ended; return $0 }
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
            widest = max(widest, update.units - previous)
            previous = update.units
        }
        precondition(watch.updates.last?.scanned == run.scale, "the last update did not see all \(run.scale) rows")
        return Double(widest)
    }

    /// The share of the wall time (start → the awaiting task resumes) that lies within
    /// 10 ms after the start or an update: 1 when updates never pause for more than 10 ms.
    static func measureProgressCoverage(_ run: RunContext) async throws -> Double {
        let watch = try await watchedFetch(run)
        let window = Duration.milliseconds(10)
        var covered = Duration.zero
        var previous = watch.started
        for instant in watch.updates.map(\.at) + [watch.ended] {
            covered += min(instant - previous, window)
            previous = max(previous, instant)
        }
        let wall = watch.ended - watch.started
        return wall > .zero ? covered / wall : 1
    }

    /// Times one uncancelled fetch, then, 16 times, starts the fetch and cancels its awaiting
    /// task from another thread after a random delay within that time, timing from
    /// `cancel()` to the task getting the cancellation error (fresh moments every run). A fetch that finished before
    /// its cancel counts for nothing; the figure is the worst delay seen.
    static func measureCancellation(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openTodoStore(for: run)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        let whole = try await Stopwatch.secondsAwaiting { try await context.fetchObjectIDs(sortedByCreation()).count }
        var random = SystemRandomNumberGenerator()
        var worst = 0.0
        var cancelled = 0
        for _ in 0..<16 {
            let delay = whole * Double(random.next() % 1_000) / 1_000
            let task = Task { try await context.fetchObjectIDs(sortedByCreation()) }
            let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
            let canceller = Thread {
                Thread.sleep(forTimeInterval: delay)
                cancelledAt.withLock { $0 = Stopwatch.now }
                task.cancel()
            }
            canceller.start()
            do {
                _ = try await task.value
            } catch let error as StrataError where error.code == .cancelled {
                let acknowledged = Stopwatch.now
                guard let at = cancelledAt.withLock({ $0 }) else { preconditionFailure("cancelled before cancel()") }
                worst = max(worst, (acknowledged - at).seconds)
                cancelled += 1
            }
            // Let the canceller finish before the next fetch starts.
            while cancelledAt.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(1)) }
        }
        precondition(cancelled > 0, "every fetch finished before its cancel()")
        return worst
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
