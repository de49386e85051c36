import Foundation
import GRDB

/// How every SQLite workload opens its database: WAL journal and `synchronous = FULL`, so each
/// commit is durable when it returns, like Strata's default `.always` durability.
///
/// GRDB switches WAL databases to `synchronous = NORMAL`; we set `FULL` back after opening and
/// check it took.
enum SQLiteDatabase {
    /// The file name inside a run or fixture directory.
    static let todoFile = "todo.sqlite"
    static let personFile = "person.sqlite"

    /// GRDB's configuration for every connection the benchmark opens.
    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(10)
        return configuration
    }

    /// Opens (creating if needed) a serialized connection.
    static func openQueue(at path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        _ = try queue.writeWithoutTransaction(makeDurable)
        return queue
    }

    /// Opens (creating if needed) a pool: one writer, concurrent readers.
    static func openPool(at path: String) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration)
        _ = try pool.writeWithoutTransaction(makeDurable)
        return pool
    }

    /// Checkpoints the WAL into the main file and truncates it, as before measuring size.
    static func checkpoint(_ writer: some DatabaseWriter) throws {
        _ = try writer.writeWithoutTransaction { db in
            try db.checkpoint(.truncate)
        }
    }

    /// SQLite's version string, e.g. "3.40.1".
    static func version() throws -> String {
        try DatabaseQueue().read { db in
            try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "unknown"
        }
    }

    private static func makeDurable(_ db: Database) throws {
        try db.execute(sql: "PRAGMA synchronous = FULL")
        let level = try Int.fetchOne(db, sql: "PRAGMA synchronous")
        guard level == 2 else {
            throw DatabaseError(message: "PRAGMA synchronous is \(level ?? -1), expected 2 (FULL)")
        }
    }
}
