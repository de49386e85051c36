import Foundation
import GRDB
import Strata

/// Issue 20's uniqueness workloads, on people with a unique email (`person<i>@example.org`,
/// first name, age; N rows). Strata's store declares `uniquenessConstraints: [["email"]]`;
/// SQLite's table has `email TEXT NOT NULL UNIQUE` (its automatic unique index). Both are
/// built once per process (not timed) and copied into each run.
///
/// - `unique-email-lookup`: p50 of 10,000 random point lookups by email (the IDs of the
///   person with that email), each timed on its own. Strata: a context's `fetchObjectIDs`
///   with `email == %@` (requests made beforehand); SQLite: one prepared
///   `SELECT id FROM person WHERE email = ?`, bind / step / reset.
/// - `upsert`: 100,000 rows by email into the N people, half of them known (update first
///   name and age), half new. Strata: one `BatchInsertRequest` with `.upsert`, filled by
///   position (the names resolved once, as the statement's parameters are); SQLite: one
///   prepared `INSERT … ON CONFLICT(email) DO UPDATE` in one transaction.
enum UniqueWorkloads {
    static let schema: Schema = try! Schema {
        Entity("Person", uniquenessConstraints: [["email"]]) {
            Attribute("email", .string)
            Attribute("firstName", .string)
            Attribute("age", .int64)
        }
    }

    static let lookups = 10_000
    static let upserts = 100_000

    static func email(_ i: Int) -> String { "person\(i)@example.org" }

    static let emailLookup = Workload(
        name: "unique-email-lookup", group: "unique", item: 20,
        summary: "p50 of \(lookups) random point lookups by unique email | prepared SELECT id … WHERE email = ?, UNIQUE email",
        unit: .seconds, target: .ratioAtMost(0.5), strata: strataLookup, sqlite: .measured(UniqueSQLite.lookup),
        best: SQLiteBest(.sameAsRecords, how: "\(UniqueSQLite.createTable); \(UniqueSQLite.lookupSQL) (one prepared statement)"),
        perObject: false)

    static let upsert = Workload(
        name: "upsert", group: "unique", item: 20,
        summary: "upsert \(upserts) rows by email into N people (half new) | one prepared INSERT … ON CONFLICT(email) DO UPDATE, one transaction",
        unit: .seconds, target: .ratioAtMost(0.5), strata: strataUpsert, sqlite: .measured(UniqueSQLite.upsert),
        best: SQLiteBest(.sameAsRecords, how: "\(UniqueSQLite.createTable); \(UniqueSQLite.upsertSQL)"),
        perObject: false)

    /// The emails to look up: `lookups` random people, the same on both sides.
    static func lookupIndexes(scale: Int) -> [Int] {
        var random = SplitMix64(seed: 0x756E_6971)  // "uniq"
        return (0..<lookups).map { _ in random.next(below: scale) }
    }

    /// The rows to upsert: (person number, first name, age); even positions are known
    /// people (a random one), odd ones new (numbers from N on).
    static func upsertRows(scale: Int) -> [(Int, String, Int64)] {
        var random = SplitMix64(seed: 0x7570_7365)  // "upse"
        return (0..<upserts).map { position in
            let person = position % 2 == 0 ? random.next(below: scale) : scale + position
            return (person, "U\(position)", Int64(position % 100))
        }
    }

    /// A copy of the people store with the unique email, built once per process.
    static func store(for run: RunContext) async throws -> String {
        let scale = run.scale
        let directory = try await run.fixtures.copy("strata-person-email", to: run.directory.appendingPathComponent("strata")) { directory in
            let store = try PersistentStore.open(at: directory.path, schema: schema, options: StrataFixtures.options)
            var start = 0
            while start < scale {
                let first = start, count = min(100_000, scale - start)
                _ = try store.execute(BatchInsertRequest(entityName: "Person", count: count) { i, row in
                    row["email"] = .string(email(first + i))
                    row["firstName"] = .string("F\((first + i) % 1000)")
                    row["age"] = .int(Int64((first + i) % 120))
                })
                start += count
            }
            _ = try store.checkpoint()
            try store.close()
        }
        return directory.path
    }

    static func strataLookup(_ run: RunContext) async throws -> Double {
        let store = try PersistentStore.open(at: try await store(for: run), schema: schema, options: StrataFixtures.options)
        let wanted = lookupIndexes(scale: run.scale)
        let requests = try wanted.map {
            FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", email($0)))
        }
        try store.buildIndexes()   // not timed, as SQLite's index is read from disk
        let strategy = try store.fetchStrategy(requests[0])
        precondition(strategy.lookupIndex == ["email"], "the lookup does not use the email index")
        let context = ObjectContext(store: store)
        let times = try context.performAndWait { () throws -> [Double] in
            var times: [Double] = []
            times.reserveCapacity(requests.count)
            for (request, person) in zip(requests, wanted) {
                let (ids, seconds) = try Stopwatch.time { try context.fetchObjectIDs(request) }
                precondition(ids.count == 1 && ids[0].primaryKey == Int64(person + 1), "Strata found \(ids) for person \(person)")
                times.append(seconds)
            }
            return times
        }
        try store.close()
        return Statistics.percentile(50, of: times)!
    }

    static func strataUpsert(_ run: RunContext) async throws -> Double {
        let store = try PersistentStore.open(at: try await store(for: run), schema: schema, options: StrataFixtures.options)
        let rows = upsertRows(scale: run.scale)
        // By position, as the SQLite side binds its prepared statement's parameters (and as
        // the batch insert workload fills its rows): the names are resolved once.
        var request = BatchInsertRequest(entityName: "Person", properties: ["email", "firstName", "age"],
                                         count: rows.count) { position, values in
            let (person, name, age) = rows[position]
            values[0] = .string(email(person))
            values[1] = .string(name)
            values[2] = .int(age)
        }
        request.mode = .upsert
        let seconds = try Stopwatch.seconds { _ = try store.execute(request) }
        let context = ObjectContext(store: store)
        let count = try context.performAndWait { try context.count(for: FetchRequest(entityName: "Person")) }
        precondition(count == run.scale + upserts / 2, "Strata has \(count) people after the upsert")
        try store.close()
        return seconds
    }
}
