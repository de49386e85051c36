import Foundation
import Strata

/// Issue 8, item 4: people aged 100 to 200 — count them, and fetch their object IDs
/// synchronously and asynchronously — against the same SQL query without an index.
/// Target: ≤ 0.2× for each (issues 4 and 5).
enum PredicateFetch {
    static let count = Workload(
        name: "predicate-count", group: "predicate", item: 4,
        summary: "count people with age BETWEEN 100 AND 200 | SELECT COUNT(*) … (no index)",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strataCount, sqlite: .measured(sqliteCount),
        best: SQLiteBest(.measured(sqliteBestCount), how: "\(SQLiteBestFixtures.personAgeIndex); \(bestCountSQL)"),
        judgedAgainst: .records)

    static let ids = Workload(
        name: "predicate-ids", group: "predicate", item: 4,
        summary: "fetch IDs of people with age BETWEEN 100 AND 200 | SELECT id … (no index)",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strataIDs, sqlite: .measured(sqliteIDs),
        best: SQLiteBest(.measured(sqliteBestIDs), how: "the same index; \(bestIDsSQL)"),
        judgedAgainst: .records)

    static let idsAsync = Workload(
        name: "predicate-ids-async", group: "predicate", item: 4,
        summary: "the same, as an asynchronous fetch | the same query in GRDB's async read",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strataIDsAsync, sqlite: .measured(sqliteIDsAsync),
        best: SQLiteBest(.measured(sqliteBestIDsAsync), how: "the same, in GRDB's async read"),
        judgedAgainst: .records)

    /// The fetch request of every workload here: `Person` with `age BETWEEN {100, 200}`.
    ///
    /// Built inside the timed part, as GRDB builds its SQL inside the SQLite side's.
    static func peopleAgedHundredToTwoHundred() throws -> FetchRequest {
        FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {100, 200}"))
    }

    /// Copies and opens the people store and makes a private-queue context (not timed), then
    /// times a count fetch of `Person` with `age BETWEEN {100, 200}` on the context's queue.
    /// Returns seconds; the count must equal the dataset's.
    static func strataCount(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openPersonStore(for: run)
        let context = ObjectContext(store: store)
        let (count, seconds) = try Stopwatch.time {
            try context.performAndWait { try context.count(for: peopleAgedHundredToTwoHundred()) }
        }
        let expected = run.dataset.idsOfPeopleAgedHundredToTwoHundred.count
        precondition(count == expected, "Strata counted \(count) people aged 100 to 200, expected \(expected)")
        try store.close()
        return seconds
    }

    /// As ``strataCount(_:)``, timing a fetch of the matches' object IDs instead. The IDs
    /// must be the dataset's, in id order (as SQLite returns them).
    static func strataIDs(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openPersonStore(for: run)
        let context = ObjectContext(store: store)
        let (ids, seconds) = try Stopwatch.time {
            try context.performAndWait { try context.fetchObjectIDs(peopleAgedHundredToTwoHundred()) }
        }
        check(ids, run)
        try store.close()
        return seconds
    }

    /// As ``strataIDs(_:)``, through the asynchronous fetch (``ObjectContext``'s `async`
    /// `fetchObjectIDs(_:progress:)`, which scans on a background queue), timed from the
    /// call until the IDs are back in the awaiting task.
    static func strataIDsAsync(_ run: RunContext) async throws -> Double {
        let store = try await StrataFixtures.openPersonStore(for: run)
        let context = ObjectContext(store: store)
        var ids: [ObjectID] = []
        let seconds = try await Stopwatch.secondsAwaiting {
            ids = try await context.fetchObjectIDs(peopleAgedHundredToTwoHundred(), progress: nil)
            return ids.count
        }
        check(ids, run)
        try store.close()
        return seconds
    }

    /// Stops the benchmark unless `ids` are exactly the dataset's people aged 100 to 200,
    /// in id order.
    private static func check(_ ids: [ObjectID], _ run: RunContext) {
        let expected = run.dataset.idsOfPeopleAgedHundredToTwoHundred
        precondition(ids.count == expected.count, "Strata fetched \(ids.count) IDs, expected \(expected.count)")
        precondition(ids.map(\.primaryKey) == expected, "Strata fetched other people than those aged 100 to 200")
    }
}
