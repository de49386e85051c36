import Foundation
import Strata

/// Issue 18, follow-up: a widening that converts (`age` int64 → double) rewrites the column
/// in memory, and until the next checkpoint every open replays the migration record, so
/// converts it again. This times such a reopen of the N-person store against a plain open
/// of the same store (target: within 1.5×, as for an added column).
enum MigrateWiden {
    /// The people schema with `age` widened to `double` (a converting lightweight migration).
    static let widenedSchema: Schema = try! Schema {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("age", .double)
        }
    }

    static let reopenOverPlainOpen = StorageBenchmark(
        name: "widen-reopen-vs-open",
        summary: "reopen of the N-person store after a converting migration (age int64 → double, not checkpointed) ÷ a plain open of it",
        unit: .ratio, target: .atMost(1.5), limit: nil, measure: measure)

    /// Copies the people store twice (not timed), migrates one copy and closes it (not
    /// timed), then times a plain open + count of the other and a reopen + count of the
    /// migrated one. Returns the ratio and prints both times.
    static func measure(_ run: RunContext) async throws -> Double {
        let plainDirectory = try await StrataFixtures.personStore(for: run).path
        let widened = try await run.fixtures.copy("strata-person", to: run.directory.appendingPathComponent("strata-widen")) { _ in
            preconditionFailure("the people store is built by the copy above")
        }
        let migrating = try PersistentStore.open(at: widened.path, schema: widenedSchema, options: StrataFixtures.options)
        precondition(migrating.schema == widenedSchema, "the store was not migrated")
        try migrating.close()

        let plain = try timeOpen(plainDirectory, schema: StrataFixtures.personSchema, scale: run.scale)
        let reopen = try timeOpen(widened.path, schema: widenedSchema, scale: run.scale)
        print(String(format: "    widen-reopen-vs-open: plain open %.1f ms, reopen after the widening %.1f ms", plain * 1000, reopen * 1000))
        return reopen / plain
    }

    static func timeOpen(_ directory: String, schema: Schema, scale: Int) throws -> Double {
        let (store, seconds) = try Stopwatch.time {
            let store = try PersistentStore.open(at: directory, schema: schema, options: StrataFixtures.options)
            let count = store.rowCounts["Person"] ?? 0
            precondition(count == scale, "expected \(scale) people, found \(count)")
            return store
        }
        precondition(store.lastLSN > 0)
        try store.close()
        return seconds
    }
}
