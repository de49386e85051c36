import GRDB

extension BatchUpdate {
    /// Opens a copy of the to-do database and times `UPDATE todo SET done = 1` in one write
    /// transaction, commit included.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.todoDatabase(for: run))
        let seconds = try Stopwatch.seconds {
            try queue.write { db in
                try db.execute(sql: "UPDATE todo SET done = 1")
                return db.changesCount
            }
        }
        try queue.close()
        return seconds
    }
}
