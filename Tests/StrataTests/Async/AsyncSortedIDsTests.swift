import Testing
import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Issue 21: an asynchronous fetch of IDs orders its compact matches and gathers keys alone
/// (no ordered items), with 4-byte positions from the radix sort. Its results must stay the
/// synchronous fetch's exactly — ties, descending, nils, deleted rows, predicates, offset
/// and limit — it must ignore a context's unsaved changes as before, and it must report and
/// stop in the sort and build phases as before.
@Suite struct AsyncSortedIDsTests {
    /// A store of `count` items, a third of whose dates are one (ties everywhere), with every
    /// seventh item deleted when `deleting` (keys with gaps, uneven chunks; otherwise the
    /// keys are one apart, and the matches of a fetch with no predicate list nothing).
    static func store(_ dir: TemporaryDirectory, count: Int, deleting: Bool = true) throws -> PersistentStore {
        let store = try AsyncFixture.makeStore(dir, count: count, seed: 5)
        _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "priority > 6"),
                                                 propertiesToUpdate: ["createdAt": .constant(.date(Date(timeIntervalSince1970: 500)))]))
        guard deleting else { return store }
        var keys: [Int64] = []
        for key in stride(from: Int64(3), through: Int64(count), by: 7) { keys.append(key) }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for key in keys { context.delete(try context.existingObject(with: ObjectID(storeID: store.storeID, entityName: "TodoItem", primaryKey: key))) }
            try context.save()
        }
        return store
    }

    static func request(_ key: String, ascending: Bool, predicate: String? = nil, offset: Int = 0, limit: Int = 0) throws -> FetchRequest {
        var request = FetchRequest(entityName: "TodoItem", predicate: try predicate.map { try ObjectPredicate(format: $0) },
                                   sortKeys: [SortKey(key, ascending: ascending)])
        request.resultType = .objectIDs
        request.fetchOffset = offset
        request.fetchLimit = limit
        return request
    }

    @Test(arguments: [false, true]) func idsAreTheSynchronousFetchsInOrder(deleting: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try Self.store(dir, count: 9_000, deleting: deleting)
        let context = ObjectContext(store: store)
        var requests: [FetchRequest] = []
        // createdAt and done: the radix sort (ties by key); score has nils: the general sort.
        for key in ["createdAt", "done", "score", "priority"] {
            for ascending in [true, false] {
                requests.append(try Self.request(key, ascending: ascending))
                requests.append(try Self.request(key, ascending: ascending, predicate: "done == NO OR priority == 2"))
                requests.append(try Self.request(key, ascending: ascending, offset: 1_000, limit: 2_500))
                requests.append(try Self.request(key, ascending: ascending, predicate: "priority BETWEEN {1, 5}", offset: 7_000))
            }
        }
        for request in requests {
            let synchronous = try context.performAndWait { try context.fetchObjectIDs(request) }
            let asynchronous = try await context.fetchObjectIDs(request)
            #expect(!synchronous.isEmpty || request.fetchOffset > 0, "\(request)")
            #expect(asynchronous == synchronous, "\(request)")
        }
    }

    /// Sorting every match by one number runs the radix sort in the IDs' own array: the IDs
    /// are the synchronous fetch's, the work reported is the sort's and the gather's in full,
    /// and a column with nils is left to the comparison sort.
    @Test func theRadixSortRunsInTheIDsArray() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try Self.store(dir, count: 5_000, deleting: false)
        let context = ObjectContext(store: store)
        for (key, numeric) in [("createdAt", true), ("done", true), ("score", false)] {
            for ascending in [true, false] {
                let request = try Self.request(key, ascending: ascending)
                let plan = try FetchPlan(request, store: store)
                let version = store.currentVersion
                let matches = try #require(plan.scan(version, into: FetchMatches.self))
                #expect(plan.sortsByRadix(matches, version: version), "\(key)")
                var units = 0, builtUnits = 0
                let outcome = plan.radixOrderedIDs(matches, entity: store.idEntities[plan.layout.index], version: version,
                                                   step: { units += $0; return true }, building: { true },
                                                   built: { builtUnits += $0; return true })
                let synchronous = try context.performAndWait { try context.fetchObjectIDs(request) }
                switch outcome {
                case .ids(let ids):
                    #expect(numeric && ids == synchronous, "\(key) ascending \(ascending)")
                    #expect(units == plan.orderWork(count: matches.count) && builtUnits == matches.count, "\(key)")
                case .notNumeric:
                    #expect(!numeric, "\(key)")
                case .stopped:
                    Issue.record("\(key): stopped")
                }
            }
        }
    }

    /// The asynchronous fetch reads the store alone: an item inserted, one deleted and one
    /// moved in the context without saving change nothing in its order.
    @Test func unsavedChangesStayOut() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try Self.store(dir, count: 4_000)
        let context = ObjectContext(store: store)
        let request = try Self.request("createdAt", ascending: true)
        var saved = request
        saved.includesPendingChanges = false
        let before = try context.performAndWait { try context.fetchObjectIDs(request) }
        try context.performAndWait {
            let item = try context.insert("TodoItem")
            try item.setValues(["name": "unsaved", "createdAt": .date(Date(timeIntervalSince1970: -1))])
            context.delete(try context.existingObject(with: before[0]))
            try context.existingObject(with: before[1]).setValue(.date(Date(timeIntervalSince1970: 1e9)), forKey: "createdAt")
        }
        let withPending = try context.performAndWait { try context.fetchObjectIDs(request) }
        #expect(withPending != before, "the unsaved changes move the synchronous fetch's results")
        #expect(try await context.fetchObjectIDs(request) == before)
    }

    /// Updates go through the scan, the sort (reading the dates, the radix passes, gathering
    /// the keys: a pass over every match, whatever offset and limit keep) and building the
    /// IDs, as many as the work's units say, never further apart than the maximum.
    @Test(arguments: [(0, 0), (1_000, 5_000)]) func progressCoversTheSortAndTheBuild(offset: Int, limit: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let count = 40_000
        let results = limit > 0 ? limit : count - offset
        let store = try AsyncFixture.makeStore(dir, count: count)
        let log = AsyncFixture.ProgressLog()
        let request = try Self.request("createdAt", ascending: true, offset: offset, limit: limit)
        let outcome = try #require(await AsyncFixture.outcome(try AsyncFixture.start(request, in: ObjectContext(store: store), log: log).1))
        #expect(outcome.error == nil && outcome.objectIDs?.count == results)
        let updates = log.updates
        #expect(AsyncFixture.progressProblems(updates, count: results, total: count) == [])
        var phases: [FetchProgress.Phase] = []
        for update in updates where phases.last != update.phase { phases.append(update.phase) }
        #expect(phases == [.scanning, .sorting, .building, .finished])
        let total = count + count * (2 + IndexMergeSort.passes(count: count)) + results
        #expect(updates.allSatisfy { $0.totalUnits == total }, "\(updates.prefix(2))")
        let building = try #require(updates.first { $0.phase == .building })
        #expect(building.completedUnits == total - results, "the sort and the gather reported all their units: \(building)")
        for (a, b) in zip(updates, updates.dropFirst()) {
            #expect(b.completedUnits - a.completedUnits <= AsynchronousFetchRequest.maximumUnitsBetweenUpdates, "\(a) then \(b)")
        }
    }

    /// Cancelling from the first update of the sort, the update that follows the last
    /// radix pass, and the first update of the build: the fetch stops there with no result.
    @Test func cancellingInTheSortOrTheBuildStops() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 30_000)
        let request = try Self.request("createdAt", ascending: false)
        let dryRun = AsyncFixture.ProgressLog()
        _ = await AsyncFixture.outcome(try AsyncFixture.start(request, in: ObjectContext(store: store), log: dryRun).1)
        let updates = dryRun.updates
        let firstSorting = try #require(updates.firstIndex { $0.phase == .sorting })
        let firstBuilding = try #require(updates.firstIndex { $0.phase == .building })
        for moment in [firstSorting, firstSorting + 1, firstBuilding - 1, firstBuilding, firstBuilding + 1] {
            let slot = AsyncFetchCancellationTests.ResultSlot()
            let log = AsyncFixture.ProgressLog()
            let (result, outcomes) = try AsyncFixture.start(request, in: ObjectContext(store: store), log: log) { index, _ in
                if index == moment { slot.wait().cancel() }
            }
            slot.fill(result)
            let outcome = try #require(await AsyncFixture.outcome(outcomes))
            #expect(outcome.error?.code == .cancelled && outcome.objectIDs == nil, "update \(moment) (\(updates[moment].phase))")
            #expect(log.updates.count == moment + 1, "update \(moment): \(log.updates.count) updates")
        }
    }
}
