import Testing
import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Issue 16: an asynchronous fetch reports progress and honours cancellation in every phase
/// — the scan, the sort, building the results and registering objects on the context's
/// queue — and after a cancellation no update claims the fetch finished.
///
/// Knobs: `STRATA_ASYNC_PHASE_SEEDS` (default 10), `STRATA_SEED` (first seed).
@Suite struct AsyncFetchPhaseTests {
    static let count = 40_000

    /// Every item sorted by creation date, as objects with no batch size (so registering them
    /// on the context's queue is a phase of its own).
    static var sortedObjects: FetchRequest {
        FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])
    }

    @Test func progressMovesThroughEveryPhaseAtMostTheMaximumApart() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: Self.count)
        let context = ObjectContext(store: store)
        let log = AsyncFixture.ProgressLog()
        let (result, outcomes) = try AsyncFixture.start(Self.sortedObjects, in: context, log: log)
        let outcome = try #require(await AsyncFixture.outcome(outcomes))
        #expect(outcome.error == nil && outcome.finalResultIDs?.count == Self.count)
        let updates = log.updates
        #expect(AsyncFixture.progressProblems(updates, count: Self.count, total: Self.count) == [])

        // The phases in order, each with updates of its own.
        var phases: [FetchProgress.Phase] = []
        for update in updates where phases.last != update.phase { phases.append(update.phase) }
        #expect(phases == [.scanning, .sorting, .building, .finished])
        let sorting = updates.filter { $0.phase == .sorting }
        let sortWork = Self.count * (2 + IndexMergeSort.passes(count: Self.count))
        #expect(sorting.count >= sortWork / AsynchronousFetchRequest.maximumUnitsBetweenUpdates,
                "\(sorting.count) updates during a sort of \(sortWork) units")
        #expect(sorting.first.map { $0.fraction < 0.2 } == true, "the sort is most of the work: \(sorting.first!)")

        // Units and fraction only grow; no gap is wider than the maximum.
        for (a, b) in zip(updates, updates.dropFirst()) {
            #expect(b.completedUnits >= a.completedUnits && b.fraction >= a.fraction, "\(a) then \(b)")
            #expect(b.completedUnits - a.completedUnits <= AsynchronousFetchRequest.maximumUnitsBetweenUpdates, "\(a) then \(b)")
        }
        #expect(updates.last?.fraction == 1)
        #expect(result.progress.fractionCompleted == 1)
    }

    /// Cancels from the handler of update `k` for `k` drawn over the whole fetch (and the
    /// first update of each phase, and the last before the end): the fetch stops there, with
    /// no later update, no finished one, and no result.
    @Test func cancellingAtAnyUpdateStopsThere() async throws {
        let seeds = testKnob("STRATA_ASYNC_PHASE_SEEDS", default: 10)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: Self.count)
        let dryRun = AsyncFixture.ProgressLog()
        _ = await AsyncFixture.outcome(try AsyncFixture.start(Self.sortedObjects, in: ObjectContext(store: store), log: dryRun).1)
        let updates = dryRun.updates
        let last = updates.count - 2 // the last update before the finished one
        var moments: [(Int, String)] = [(last, "the last update before the end")]
        for phase in [FetchProgress.Phase.scanning, .sorting, .building] {
            if let first = updates.firstIndex(where: { $0.phase == phase }) { moments.append((first, "the first \(phase) update")) }
        }
        for seed in base..<base + UInt64(seeds) {
            var rng = SplitMix64(seed: seed)
            moments.append((Int(rng.next() % UInt64(last + 1)), "seed \(seed) (STRATA_SEED=\(seed) STRATA_ASYNC_PHASE_SEEDS=1 replays it)"))
        }
        for (moment, what) in moments {
            let context = ObjectContext(store: store)
            let slot = AsyncFetchCancellationTests.ResultSlot()
            let log = AsyncFixture.ProgressLog()
            let (result, outcomes) = try AsyncFixture.start(Self.sortedObjects, in: context, log: log) { index, update in
                if index == moment && !update.isFinished { slot.wait().cancel() }
            }
            slot.fill(result)
            let outcome = try #require(await AsyncFixture.outcome(outcomes), "\(what)")
            let phase = updates[moment].phase
            #expect(outcome.error?.code == .cancelled, "\(what), \(phase): \(String(describing: outcome.error))")
            #expect(outcome.finalResultIDs == nil && outcome.objectIDs == nil && outcome.count == nil, "\(what): no partial result")
            #expect(log.updates.count == moment + 1, "\(what), \(phase): \(log.updates.count) updates after cancelling at \(moment)")
            #expect(log.updates.filter(\.isFinished).isEmpty, "\(what)")
            #expect(result.isCancelled, "\(what)")
            var streamed: [FetchProgress] = []
            for await update in result.progressUpdates { streamed.append(update) }
            #expect(streamed.filter(\.isFinished).isEmpty, "\(what)")
            // The objects registered before the cancellation are let go.
            let left = context.performAndWait { context.registry.count }
            #expect(left == 0, "\(what): \(left) objects left")
        }
    }

    /// `cancel()` from another thread at a random moment, late ones included: either the
    /// fetch is cancelled and no update claims it finished, or it completes with exactly one
    /// finished update, last, and stays not cancelled.
    @Test func aCancelledFetchNeverReportsFinished() async throws {
        let seeds = testKnob("STRATA_ASYNC_PHASE_SEEDS", default: 10)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 10_000)
        let context = ObjectContext(store: store)
        // The fetch's usual length: the shortest of three, so that one run slowed down by the
        // rest of a parallel test run (seen: tens of seconds) does not stretch every wait below.
        var span = Duration.seconds(3_600)
        for _ in 0..<3 {
            let started = ContinuousClock.now
            _ = try #require(await AsyncFixture.outcome(try AsyncFixture.start(Self.sortedObjects, in: context).1, within: .seconds(120)),
                             "warm-up fetch: no completion within 120 s")
            span = min(span, ContinuousClock.now - started)
        }
        var outcomes: (cancelled: Int, completed: Int) = (0, 0)
        for seed in base..<base + UInt64(seeds) * 2 {
            var rng = SplitMix64(seed: seed)
            let replay = "seed \(seed) (STRATA_SEED=\(seed) replays it)"
            let log = AsyncFixture.ProgressLog()
            let (result, stream) = try AsyncFixture.start(Self.sortedObjects, in: context, log: log)
            // Somewhere from the start to a little after the usual end, from another thread.
            let delay = span * (Double(rng.next() % 1_200) / 1_000)
            let nanoseconds = Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { result.cancel() }
            let outcome = try #require(await AsyncFixture.outcome(stream, within: .seconds(120)),
                                       "\(replay): no completion within 120 s of the fetch's start")
            let finished = log.updates.filter(\.isFinished)
            if outcome.error?.code == .cancelled {
                outcomes.cancelled += 1
                #expect(finished.isEmpty, "\(replay): cancelled, yet \(finished)")
                #expect(result.isCancelled, "\(replay)")
            } else {
                outcomes.completed += 1
                #expect(outcome.error == nil && outcome.finalResultIDs?.count == 10_000, "\(replay)")
                #expect(finished.count == 1 && log.updates.last?.isFinished == true, "\(replay)")
                #expect(!result.isCancelled, "\(replay): a cancel() after completion changes nothing")
            }
        }
        // Deterministic ends of the race: before the start and after the completion.
        let (early, earlyStream) = try AsyncFixture.start(Self.sortedObjects, in: context)
        early.cancel()
        let earlyOutcome = try #require(await AsyncFixture.outcome(earlyStream, within: .seconds(120)),
                                        "a fetch cancelled at once: no completion within 120 s")
        #expect(earlyOutcome.error?.code == .cancelled)
        let log = AsyncFixture.ProgressLog()
        let (late, lateStream) = try AsyncFixture.start(Self.sortedObjects, in: context, log: log)
        let lateOutcome = try #require(await AsyncFixture.outcome(lateStream, within: .seconds(120)),
                                       "a fetch cancelled after its completion: no completion within 120 s")
        #expect(lateOutcome.error == nil)
        late.cancel()
        late.progress.cancel()
        #expect(!late.isCancelled && log.updates.last?.isFinished == true)
    }
}
