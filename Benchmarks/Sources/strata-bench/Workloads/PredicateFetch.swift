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
        strata: strataCount, sqlite: .measured(sqliteCount))

    static let ids = Workload(
        name: "predicate-ids", group: "predicate", item: 4,
        summary: "fetch IDs of people with age BETWEEN 100 AND 200 | SELECT id … (no index)",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strataIDs, sqlite: .measured(sqliteIDs))

    static let idsAsync = Workload(
        name: "predicate-ids-async", group: "predicate", item: 4,
        summary: "the same, as an asynchronous fetch | the same query in GRDB's async read",
        unit: .seconds, target: .ratioAtMost(0.2),
        strata: strataIDsAsync, sqlite: .measured(sqliteIDsAsync))

    /// **To fill in.** `StrataFixtures.personStore(for: run)`, open it (not timed), then time
    /// a count fetch of `Person` with `age BETWEEN {100, 200}`. Returns seconds.
    static func strataCount(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.personStore(for: run)
        throw StrataPending("FetchRequest with a predicate, count result")
    }

    /// **To fill in.** As ``strataCount(_:)``, timing a fetch of object IDs instead.
    static func strataIDs(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.personStore(for: run)
        throw StrataPending("FetchRequest with a predicate, object ID result")
    }

    /// **To fill in.** As ``strataIDs(_:)``, as an asynchronous fetch, timed until its
    /// result arrives.
    static func strataIDsAsync(_ run: RunContext) async throws -> Double {
        _ = try await StrataFixtures.personStore(for: run)
        throw StrataPending("asynchronous fetch, object ID result")
    }
}
