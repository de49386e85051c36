import GRDB

extension BatchDelete {
    /// Opens a copy of the to-do database and times `DELETE FROM todo WHERE id % 2 = 0` in one
    /// write transaction, commit included. The number of rows deleted must be the dataset's
    /// number of even ids.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.todoDatabase(for: run))
        let (deleted, seconds) = try Stopwatch.time {
            try queue.write { db in
                try db.execute(sql: "DELETE FROM todo WHERE id % 2 = 0")
                return db.changesCount
            }
        }
        let expected = run.dataset.evenTodoCount
        precondition(deleted == expected, "SQLite deleted \(deleted) rows, expected \(expected)")
        try queue.close()
        return seconds
    }
}
