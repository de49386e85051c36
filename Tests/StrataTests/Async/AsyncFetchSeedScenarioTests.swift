import Testing
import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// The seed tutorial's headline: 100,000 to-do items fetched in the background, sorted by
/// creation date, with progress, while the same context keeps inserting, toggling and saving.
///
/// Knob: `STRATA_ASYNC_ITEMS` (default 100,000; the benchmark uses 1,000,000).
@Suite struct AsyncFetchSeedScenarioTests {
    @Test func sortedFetchWithProgressWhileTheContextSaves() async throws {
        let count = testKnob("STRATA_ASYNC_ITEMS", default: 100_000)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: count)
        let context = ObjectContext(store: store, name: "ui")
        let request = FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])
        let expected = try context.performAndWait { try context.fetchObjectIDs(request) }
        #expect(expected.count == count)

        // On updates 0, 2 and 4 the same context inserts an item, toggles one and saves; the
        // handler waits for the save, so each lands while the scan is running.
        let saves = Locked<(inserted: [ObjectID], errors: [String])>(([], []))
        let log = AsyncFixture.ProgressLog()
        let (result, outcomes) = try AsyncFixture.start(request, in: context, log: log) { index, update in
            guard !update.isFinished, index % 2 == 0, index <= 4 else { return }
            context.performAndWait {
                do {
                    let item = try context.insert("TodoItem")
                    try item.setValues(["name": .string("during \(index)"), "createdAt": .date(Date(timeIntervalSince1970: -1))])
                    let toggled = context.object(with: expected[index])
                    try toggled.setValue(.bool(!(try toggled.bool("done") ?? false)), forKey: "done")
                    try context.save()
                    saves.withLock { $0.inserted.append(item.objectID) }
                } catch {
                    saves.withLock { $0.errors.append("update \(index): \(error)") }
                }
            }
        }
        let streamed = Task { () -> [FetchProgress] in
            var received: [FetchProgress] = []
            for await update in result.progressUpdates { received.append(update) }
            return received
        }
        let outcome = try #require(await AsyncFixture.outcome(outcomes))
        let (inserted, errors) = saves.withLock { ($0.inserted, $0.errors) }
        #expect(errors.isEmpty)
        #expect(inserted.count == min(3, log.updates.count / 2))

        // The result is the pinned version's: the saves made meanwhile are not in it.
        #expect(outcome.error == nil)
        #expect(outcome.completedOnContextQueue)
        #expect(outcome.finalResultIDs == expected)
        #expect(outcome.objectIDs == expected)
        #expect(outcome.count == count)
        #expect(outcome.finalResultRegistered)

        // Progress: arrives per chunk group, monotonic, ends at the result count.
        let updates = log.updates
        #expect(AsyncFixture.progressProblems(updates, count: count, total: count) == [])
        #expect(updates.count >= count / 16_384)
        #expect(updates.first.map { $0.scanned <= 1_024 } == true, "the first update comes after the first chunk")
        for (a, b) in zip(updates, updates.dropFirst()) {
            #expect(b.scanned - a.scanned <= 16_384 + 1_024, "a gap of more than 16 Ki rows plus a chunk: \(a) then \(b)")
        }
        // Foundation's progress counts units of work: all of them done at the end.
        #expect(result.progress.totalUnitCount >= Int64(count))
        #expect(result.progress.completedUnitCount == result.progress.totalUnitCount)
        #expect(result.progress.fractionCompleted == 1)
        let fromStream = await streamed.value
        #expect(fromStream.last?.isFinished == true)
        #expect(fromStream.last?.found == count)
        #expect(fromStream == Array(updates.suffix(fromStream.count)), "the stream sees the tail of the handler's updates")

        // A new fetch sees the saves.
        let again = try #require(await AsyncFixture.outcome(try AsyncFixture.start(request, in: context).1))
        #expect(again.finalResultIDs?.count == count + inserted.count)
        #expect(Set(again.finalResultIDs?.prefix(inserted.count) ?? []) == Set(inserted))
    }

    @Test func filteredFetchReportsRecordsFoundNotRowsScanned() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 40_000)
        let context = ObjectContext(store: store)
        var request = FetchRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "done == NO AND priority > 4"),
                                   sortKeys: [SortKey("createdAt", ascending: false)])
        request.fetchOffset = 100
        request.fetchLimit = 5_000
        let expected = try context.performAndWait { try context.fetchObjectIDs(request) }
        let log = AsyncFixture.ProgressLog()
        let outcome = try #require(await AsyncFixture.outcome(try AsyncFixture.start(request, in: context, log: log).1))
        #expect(outcome.finalResultIDs == expected)
        #expect(expected.count == 5_000)
        #expect(AsyncFixture.progressProblems(log.updates, count: 5_000, total: 40_000) == [])
        #expect(log.updates.allSatisfy { $0.found <= 5_000 && $0.found <= $0.scanned })
    }
}
