import Testing
import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Cancellation (through `progress.cancel()` or the awaiting task) and request errors.
///
/// Knobs: `STRATA_ASYNC_CANCEL_SEEDS` (default 12), `STRATA_SEED` (first seed).
@Suite struct AsyncFetchCancellationTests {
    /// A slot the test fills with the running fetch; a progress handler that needs it waits
    /// until it is filled (the first update can arrive before `execute` returns).
    final class ResultSlot: Sendable {
        private let value = Locked<AsynchronousFetchResult?>(nil)
        private let filled = DispatchSemaphore(value: 0)
        /// Stores the result and wakes the waiter.
        func fill(_ result: AsynchronousFetchResult) { value.withLock { $0 = result }; filled.signal() }
        /// Waits until filled, then returns the result (one waiter).
        func wait() -> AsynchronousFetchResult {
            filled.wait()
            filled.signal()
            return value.withLock { $0! }
        }
    }

    /// Checks that `context` still fetches (synchronously and asynchronously) and saves.
    static func expectContextWorks(_ context: ObjectContext, count: Int, _ replay: String) async throws {
        let request = FetchRequest(entityName: "TodoItem")
        try context.performAndWait {
            #expect(try context.count(for: request) == count, "\(replay)")
            let item = try context.insert("TodoItem")
            try item.setValues(["name": "after cancel", "createdAt": .date(Date())])
            try context.save()
        }
        let outcome = await AsyncFixture.outcome(try AsyncFixture.start(request, in: context).1)
        #expect(outcome?.count == count + 1, "\(replay)")
    }

    @Test func cancelAtARandomMoment() async throws {
        let seeds = testKnob("STRATA_ASYNC_CANCEL_SEEDS", default: 12)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        let count = 70_000
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: count)
        var rows = count
        let updatesBeforeTheEnd = 1 + (count - 1_024) / 16_384
        for seed in base..<base + UInt64(seeds) {
            var rng = SplitMix64(seed: seed)
            let replay = "seed \(seed) (STRATA_SEED=\(seed) STRATA_ASYNC_CANCEL_SEEDS=1 replays it)"
            // -1: right after execute returns; k: in the handler of progress update k.
            let moment = Int(rng.next() % UInt64(updatesBeforeTheEnd + 1)) - 1
            let context = ObjectContext(store: store, name: "seed \(seed)")
            let slot = ResultSlot()
            let log = AsyncFixture.ProgressLog()
            let request = FetchRequest(entityName: "TodoItem", predicate: rng.next() % 2 == 0 ? nil : try ObjectPredicate(format: "done == NO"),
                                       sortKeys: [SortKey("createdAt")])
            // The first update waits for the slot, so a cancel made before filling it lands
            // during the scan; update `moment` cancels from the handler.
            let (result, outcomes) = try AsyncFixture.start(request, in: context, log: log) { index, update in
                if index == 0 { _ = slot.wait() }
                if index == moment && !update.isFinished { slot.wait().cancel() }
            }
            if moment < 0 { result.cancel() }
            slot.fill(result)
            let outcome = try #require(await AsyncFixture.outcome(outcomes), "\(replay)")
            #expect(outcome.error?.code == .cancelled, "\(replay)")
            #expect(outcome.error?.message.contains("cancelled") == true, "\(replay)")
            #expect(outcome.finalResultIDs == nil && outcome.objectIDs == nil && outcome.count == nil, "\(replay): no partial result")
            #expect(outcome.completedOnContextQueue, "\(replay)")
            #expect(result.isCancelled, "\(replay)")
            // Stopped within a chunk of the cancelling update: no later update arrives.
            #expect(log.updates.count == max(moment, 0) + 1, "\(replay): \(log.updates.count) updates after cancelling at \(moment)")
            let finished = log.updates.filter { $0.isFinished }
            #expect(finished.isEmpty, "\(replay): a cancelled fetch never finishes its progress")
            // The progress stream ends.
            var streamed = 0
            for await _ in result.progressUpdates { streamed += 1 }
            #expect(streamed <= 1, "\(replay)")
            try await Self.expectContextWorks(context, count: rows, replay)
            rows += 1
        }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheFetch() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 50_000)
        let context = ObjectContext(store: store)
        let (firstUpdate, firstUpdateContinuation) = AsyncStream<FetchProgress>.makeStream()
        let resume = DispatchSemaphore(value: 0)
        let updates = Locked(0)
        let task = Task {
            try await context.fetchObjectIDs(FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])) { update in
                let n = updates.withLock { $0 += 1; return $0 }
                if n == 1 {
                    firstUpdateContinuation.yield(update)
                    resume.wait() // hold the scan until the test has cancelled the task
                }
            }
        }
        for await _ in firstUpdate { break }
        task.cancel()
        resume.signal()
        let result = await task.result
        #expect(throws: StrataError.self) { try result.get() }
        if case .failure(let error as StrataError) = result { #expect(error.code == .cancelled) }
        try await Self.expectContextWorks(context, count: 50_000, "task cancellation")
        // Checked after another fetch and a save, so that an update the cancelled scan sent
        // late would be counted.
        #expect(updates.withLock { $0 } == 1, "no update after the cancelled one")
    }

    @Test func aTaskCancelledBeforeFetchingGetsCancelled() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 3_000)
        let context = ObjectContext(store: store)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await context.fetchObjectIDs(FetchRequest(entityName: "TodoItem"))
        }
        let result = await task.result
        if case .failure(let error as StrataError) = result { #expect(error.code == .cancelled) } else { Issue.record("expected .cancelled, got \(result)") }
    }

    @Test func asyncFormReturnsIDsWhateverTheResultType() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 3_000)
        let context = ObjectContext(store: store)
        var request = FetchRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "priority == 3"))
        let expected = try context.performAndWait { try context.fetchObjectIDs(request) }
        for type in [FetchRequest.ResultType.objects, .objectIDs, .count, .dictionaries] {
            request.resultType = type
            let ids = try await context.fetchObjectIDs(request)
            #expect(ids == expected, "result type \(type)")
        }
        // The .objects form registers nothing: IDs cross queues, objects do not.
        #expect(context.performAndWait { context.registeredObjects.isEmpty })
    }

    /// A request that cannot run, the error code it gets and a word its message must hold.
    static let badRequests: [(String, FetchRequest, StrataError.Code, String)] = {
        var negativeLimit = FetchRequest(entityName: "TodoItem")
        negativeLimit.fetchLimit = -1
        var negativeOffset = FetchRequest(entityName: "TodoItem")
        negativeOffset.fetchOffset = -3
        var badProperty = FetchRequest(entityName: "TodoItem")
        badProperty.resultType = .dictionaries
        badProperty.propertiesToFetch = ["nme"]
        return [
            ("unknown entity", FetchRequest(entityName: "TodoItems"), .unknownEntity, "did you mean 'TodoItem'"),
            ("unknown sort key", FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdOn")]), .unknownKey, "did you mean 'createdAt'"),
            ("negative limit", negativeLimit, .misuse, "fetchLimit"),
            ("negative offset", negativeOffset, .misuse, "fetchOffset"),
            ("unknown property to fetch", badProperty, .unknownKey, "did you mean 'name'"),
            ("unknown predicate key", FetchRequest(entityName: "TodoItem", predicate: try! ObjectPredicate(format: "priorty > 3")), .unknownKey, "priority"),
            ("predicate type mismatch", FetchRequest(entityName: "TodoItem", predicate: try! ObjectPredicate(format: "done == 'yes'")), .typeMismatch, "done"),
        ]
    }()

    @Test func badRequestsThrowAtExecute() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 100)
        let context = ObjectContext(store: store)
        let completions = Locked(0)
        for (name, fetch, code, mention) in Self.badRequests {
            let request = AsynchronousFetchRequest(fetchRequest: fetch) { _ in completions.withLock { $0 += 1 } }
            do {
                _ = try context.execute(request)
                Issue.record("\(name): execute did not throw")
            } catch {
                #expect(error.code == code, "\(name): \(error)")
                #expect(error.message.contains(mention), "\(name): \(error.message)")
            }
            do {
                _ = try await context.fetchObjectIDs(fetch)
                Issue.record("\(name): fetchObjectIDs did not throw")
            } catch let error as StrataError {
                #expect(error.code == code, "\(name) (async form): \(error)")
            }
        }
        // Completions would have been scheduled on the queue by now; a block after them sees none.
        #expect(context.performAndWait { completions.withLock { $0 } } == 0)
    }
}
