import Foundation
import GRDB

/// The SQLite side of ``UniqueWorkloads``: a people table with a unique email, built once
/// per process through one prepared statement in one transaction, and the two workloads
/// through SQLite's C API on prepared statements.
enum UniqueSQLite {
    static let createTable = "CREATE TABLE person (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, firstName TEXT NOT NULL, age INTEGER NOT NULL)"
    static let insertSQL = "INSERT INTO person (email, firstName, age) VALUES (?, ?, ?)"
    static let lookupSQL = "SELECT id FROM person WHERE email = ?"
    static let upsertSQL = "INSERT INTO person (email, firstName, age) VALUES (?, ?, ?) ON CONFLICT(email) DO UPDATE SET firstName = excluded.firstName, age = excluded.age"

    /// A copy of the database, built once per process; returns its path.
    static func database(for run: RunContext) async throws -> String {
        let scale = run.scale
        let directory = try await run.fixtures.copy("sqlite-person-email", to: run.directory.appendingPathComponent("sqlite")) { directory in
            let queue = try SQLiteDatabase.openQueue(at: directory.appendingPathComponent(SQLiteDatabase.personFile).path)
            try await queue.write { db in
                try db.execute(sql: createTable)
                let statement = try RawStatement(insertSQL, in: db)
                for i in 0..<scale {
                    statement.bind(1, UniqueWorkloads.email(i))
                    statement.bind(2, "F\(i % 1000)")
                    statement.bind(3, Int64(i % 120))
                    _ = try statement.step()
                    statement.reset()
                }
            }
            try queue.close()
        }
        return directory.appendingPathComponent(SQLiteDatabase.personFile).path
    }

    static func lookup(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await database(for: run))
        let wanted = UniqueWorkloads.lookupIndexes(scale: run.scale)
        let emails = wanted.map(UniqueWorkloads.email)
        let times = try await queue.read { db in
            let statement = try RawStatement(lookupSQL, in: db)
            var times: [Double] = []
            times.reserveCapacity(emails.count)
            for (email, person) in zip(emails, wanted) {
                let (id, seconds) = try Stopwatch.time { () throws -> Int64 in
                    statement.bind(1, email)
                    guard try statement.step() else { return -1 }
                    let id = statement.int64(0)
                    statement.reset()
                    return id
                }
                precondition(id == Int64(person + 1), "SQLite found \(id) for person \(person)")
                times.append(seconds)
            }
            return times
        }
        try queue.close()
        return Statistics.percentile(50, of: times)!
    }

    static func upsert(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await database(for: run))
        let rows = UniqueWorkloads.upsertRows(scale: run.scale)
        let seconds = try Stopwatch.seconds {
            try queue.write { db in
                let statement = try RawStatement(upsertSQL, in: db)
                for (person, name, age) in rows {
                    statement.bind(1, UniqueWorkloads.email(person))
                    statement.bind(2, name)
                    statement.bind(3, age)
                    _ = try statement.step()
                    statement.reset()
                }
            }
        }
        let count = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM person")! }
        precondition(count == run.scale + UniqueWorkloads.upserts / 2, "SQLite has \(count) people after the upsert")
        try queue.close()
        return seconds
    }
}
