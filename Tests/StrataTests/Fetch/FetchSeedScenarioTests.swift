import Dispatch
import Foundation
import Testing
@testable import Strata

/// The seed scenario of issue 4: a private-queue context fetches the IDs of every Person
/// with `(age >= 100) AND (age <= 200)` in batches of 20 and hands them to a main-queue
/// context, which turns them into objects with `object(with:)` and reads their names.
///
/// Under `swift test` on Linux the runner's async entry point drains the main queue
/// (`dispatch_main`), so `DispatchQueue.main` work submitted from an async test runs — but
/// on a worker thread: `Thread.isMainThread` is `false` inside it. A main-queue context must
/// therefore recognize its queue by queue identity, not by thread. The test first checks
/// with a timeout that the main queue is serviced, so a runner that does not service it
/// fails with a message instead of hanging.
@Suite struct FetchSeedScenarioTests {
    /// Whether a block submitted to the main queue runs within `seconds`.
    static func mainQueueIsServiced(within seconds: Double) async -> Bool {
        final class Once: @unchecked Sendable { // guarded by `lock`
            let lock = NSLock()
            var done = false
            func claim() -> Bool { lock.lock(); defer { lock.unlock() }; if done { return false }; done = true; return true }
        }
        let once = Once()
        return await withCheckedContinuation { continuation in
            DispatchQueue.main.async { if once.claim() { continuation.resume(returning: true) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { if once.claim() { continuation.resume(returning: false) } }
        }
    }

    @Test func privateContextFetchesIDsMainContextReadsNames() async throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        let writer = harness.context
        // 600 people aged 0…599 (every 7th without an age), named after their age.
        try await writer.perform {
            for age in 0..<600 {
                try FetchFixtures.person(writer, ["name": .string("p\(age)"), "age": age % 7 == 3 ? .null : .int(Int64(age))])
            }
            try writer.save()
        }
        let expected = (100...200).filter { $0 % 7 != 3 }.map { "p\($0)" }

        let background = ObjectContext(store: harness.store, concurrencyType: .privateQueue, name: "background")
        let ids: [ObjectID] = try await background.perform {
            var request = FetchRequest(entityName: "Person")
            request.predicate = try ObjectPredicate(format: "(age >= 100) AND (age <= 200)")
            request.fetchBatchSize = 20
            return try background.fetchObjectIDs(request)
        }
        #expect(ids.count == expected.count)

        try #require(await Self.mainQueueIsServiced(within: 10),
                     "the main queue is not serviced under this test runner; a main-queue context cannot run here")
        let main = ObjectContext(store: harness.store, concurrencyType: .mainQueue, name: "main")
        // Expectations are checked back in the test (issues recorded on the main queue's
        // worker thread would not be attributed to it).
        let (onQueue, faults, names) = try await main.perform { () throws -> (Bool, Int, [String]) in
            let objects = ids.map { main.object(with: $0) }
            let faults = objects.filter(\.isFault).count
            return (main.isOnQueue, faults, try objects.map { try $0.string("name") ?? "?" })
        }
        #expect(onQueue)
        #expect(faults == ids.count, "object(with:) hands out faults")
        #expect(names == expected)

        // The same on the main queue with objects in batches of 20, as a list view would.
        let (batchIDs, batched) = try await main.perform { () throws -> ([ObjectID], [String]) in
            var request = try FetchRequest("Person", "(age >= 100) AND (age <= 200)")
            request.fetchBatchSize = 20
            let results = try main.fetch(request)
            return (results.objectIDs, try results.map { try $0.string("name") ?? "?" })
        }
        #expect(batchIDs == ids)
        #expect(batched == expected)
    }
}
