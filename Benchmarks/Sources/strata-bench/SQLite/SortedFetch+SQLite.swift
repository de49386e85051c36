import GRDB

extension SortedFetch {
    /// Opens a copy of the to-do database and times fetching every record ordered by
    /// `createdAt` (no index: SQLite sorts), then reading `name` from each. The number of
    /// records and the total length of the names must be the dataset's.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.todoDatabase(for: run))
        let ((count, characters), seconds) = try Stopwatch.time {
            let items = try queue.read { db in
                try TodoItem.order(TodoItem.Columns.createdAt).fetchAll(db)
            }
            var characters = 0
            for item in items { characters &+= item.name.utf8.count }
            return (items.count, characters)
        }
        precondition(count == run.scale, "SQLite fetched \(count) records, expected \(run.scale)")
        let expected = run.dataset.todoNameBytes
        precondition(characters == expected, "read \(characters) bytes of names, expected \(expected)")
        try queue.close()
        return seconds
    }
}
