import GRDB

extension ContextInsert {
    /// Creates an empty `todo` table, then times inserting every item as a GRDB record in one
    /// write transaction, commit included. Afterwards (not timed) the table must hold N rows.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let path = run.directory.appendingPathComponent(SQLiteDatabase.todoFile).path
        let queue = try SQLiteDatabase.openQueue(at: path)
        try await queue.write(TodoItem.createTable)
        let items = run.dataset.todoItems
        let seconds = try Stopwatch.seconds {
            try queue.write { db in
                for item in items { try item.insert(db) }
            }
        }
        let count = try await queue.read { db in try TodoItem.fetchCount(db) }
        precondition(count == run.scale, "expected \(run.scale) rows, found \(count)")
        try queue.close()
        return seconds
    }
}
