import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// Property: an asynchronous fetch returns exactly what the synchronous fetch of the same
/// request returns — random data (with deletions, so chunks are uneven), random predicates,
/// sorts, limits, offsets, batch sizes and result types.
///
/// Knobs: `STRATA_ASYNC_PROPERTY_SEEDS` (default 6 stores), `STRATA_ASYNC_PROPERTY_REQUESTS`
/// (default 40 requests per store), `STRATA_SEED` (first seed).
@Suite struct AsyncFetchPropertyTests {
    static let predicates: [String?] = [
        nil, "done == NO", "priority > 5", "priority BETWEEN {2, 4} OR done == YES", "score < 0.3", "score == nil",
        "tag == 'home'", "tag ==[c] 'home'", "tag != nil AND priority < 3", "name BEGINSWITH 'item 1'", "name ENDSWITH '7'",
        "createdAt > %@", "NOT (done == YES AND priority == 0)", "priority IN {1, 3, 9}",
    ]
    static let sortable = ["createdAt", "priority", "name", "score", "tag", "done"]

    /// A random request over `AsyncFixture.schema`, drawn from `rng`.
    static func randomRequest(_ rng: inout SplitMix64) throws -> FetchRequest {
        func pick<T>(_ options: [T]) -> T { options[Int(rng.next() % UInt64(options.count))] }
        var request = FetchRequest(entityName: "TodoItem")
        if let format = pick(predicates) {
            request.predicate = format.contains("%@")
                ? try ObjectPredicate(format: format, Date(timeIntervalSince1970: Double(rng.next() % 10_000_000)))
                : try ObjectPredicate(format: format)
        }
        request.sortKeys = (0..<Int(rng.next() % 3)).map { _ in
            SortKey(pick(sortable), ascending: rng.next() % 2 == 0, caseInsensitive: rng.next() % 3 == 0)
        }
        if rng.next() % 2 == 0 { request.fetchLimit = Int(rng.next() % 300) }
        if rng.next() % 2 == 0 { request.fetchOffset = Int(rng.next() % 400) }
        if rng.next() % 3 == 0 { request.fetchBatchSize = 1 + Int(rng.next() % 50) }
        request.returnsObjectsAsFaults = rng.next() % 2 == 0
        request.resultType = pick([.objects, .objectIDs, .count, .dictionaries])
        if request.resultType == .dictionaries && rng.next() % 2 == 0 {
            request.propertiesToFetch = Array(Set((0..<(1 + Int(rng.next() % 3))).map { _ in pick(sortable) }))
        }
        return request
    }

    @Test func asynchronousAndSynchronousFetchesAgree() async throws {
        let stores = testKnob("STRATA_ASYNC_PROPERTY_SEEDS", default: 6)
        let requests = testKnob("STRATA_ASYNC_PROPERTY_REQUESTS", default: 40)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        for seed in base..<base + UInt64(stores) {
            var rng = SplitMix64(seed: seed)
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let store = try AsyncFixture.makeStore(dir, count: 500 + Int(rng.next() % 6_000), seed: seed)
            // Deletions and updates leave uneven chunks and changed statistics.
            _ = try store.execute(BatchDeleteRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "name ENDSWITH '3' OR priority == 10")))
            _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "priority == 4"),
                                                     propertiesToUpdate: ["tag": .constant(nil), "done": .not("done")]))
            let context = ObjectContext(store: store, name: "seed \(seed)")
            for n in 0..<requests {
                let request = try Self.randomRequest(&rng)
                let replay = "seed \(seed) request \(n) (STRATA_SEED=\(seed) STRATA_ASYNC_PROPERTY_SEEDS=1 replays it): \(request)"
                let synchronous = try context.performAndWait { try context.execute(request) }
                let log = AsyncFixture.ProgressLog()
                let outcome = try #require(await AsyncFixture.outcome(try AsyncFixture.start(request, in: context, log: log).1), "\(replay)")
                #expect(outcome.error == nil, "\(replay)")
                let count: Int
                switch synchronous {
                case .objects(let objects):
                    #expect(outcome.finalResultIDs == objects.objectIDs, "\(replay)")
                    #expect(outcome.finalResultRegistered || request.fetchBatchSize > 0, "\(replay)")
                    count = objects.count
                case .objectIDs(let ids):
                    #expect(outcome.objectIDs == ids, "\(replay)")
                    count = ids.count
                case .count(let n):
                    #expect(outcome.count == n, "\(replay)")
                    count = n
                case .dictionaries(let rows):
                    #expect(outcome.dictionaries == rows, "\(replay)")
                    count = rows.count
                }
                let total = store.rowCounts["TodoItem"] ?? 0
                #expect(AsyncFixture.progressProblems(log.updates, count: count, total: total) == [], "\(replay)")
            }
        }
    }
}
