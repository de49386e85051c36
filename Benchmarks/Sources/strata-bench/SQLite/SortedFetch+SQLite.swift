import GRDB

extension SortedFetch {
    /// Opens a copy of the to-do database and times fetching every record ordered by
    /// `createdAt` (no index: SQLite sorts), then reading `name` from each.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.todoDatabase(for: run))
        let seconds = try Stopwatch.seconds {
            let items = try queue.read { db in
                try TodoItem.order(TodoItem.Columns.createdAt).fetchAll(db)
            }
            var characters = 0
            for item in items { characters &+= item.name.utf8.count }
            return characters
        }
        try queue.close()
        return seconds
    }
}
