import Foundation
import GRDB

extension ResidentMemory {
    /// Copies the to-do database and runs the probe on it in a child process.
    static func sqlite(_ run: RunContext) async throws -> Double {
        try probe(engine: .sqlite, path: try await SQLiteFixtures.todoDatabase(for: run))
    }

    /// Runs in the child process: opens the database at `path`, counts the to-do items and
    /// returns the count, keeping the connection alive in `keepAlive`.
    static func sqliteOpenAndCount(path: String, keepAlive: inout [AnyObject]) throws -> Int {
        let queue = try SQLiteDatabase.openQueue(at: path)
        keepAlive.append(queue)
        return try queue.read(TodoItem.fetchCount)
    }
}
