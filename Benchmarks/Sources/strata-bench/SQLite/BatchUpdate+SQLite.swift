import GRDB

extension BatchUpdate {
    /// Opens a copy of the to-do database and times `UPDATE todo SET done = 1` in one write
    /// transaction, commit included. The number of rows changed must be N.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.todoDatabase(for: run))
        let (changed, seconds) = try Stopwatch.time {
            try queue.write { db in
                try db.execute(sql: "UPDATE todo SET done = 1")
                return db.changesCount
            }
        }
        precondition(changed == run.scale, "SQLite updated \(changed) rows, expected \(run.scale)")
        try queue.close()
        return seconds
    }
}
