import GRDB

extension SortedFetch {
    /// The sorted fetch with ``SQLiteBestFixtures/todoCreatedAtIndex``: SQLite walks the index
    /// instead of sorting, and only the columns read are selected.
    static let bestSQL = "SELECT id, name FROM todo ORDER BY createdAt"

    /// Opens a copy of the indexed to-do database and times stepping ``bestSQL`` once, keeping
    /// every row's id and name in an array (what the Strata side's faults give), then reading
    /// each name's length. The ids' order and the names' total length must be the dataset's.
    static func sqliteBest(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteBestFixtures.indexedTodoDatabase(for: run))
        let ((ids, characters), seconds) = try Stopwatch.time {
            let rows = try queue.read { db in
                let statement = try RawStatement(bestSQL, in: db)
                var rows: [(id: Int64, name: String)] = []
                while try statement.step() { rows.append((statement.int64(0), statement.string(1))) }
                return rows
            }
            var characters = 0
            var ids: [Int64] = []
            ids.reserveCapacity(rows.count)
            for row in rows {
                characters &+= row.name.utf8.count
                ids.append(row.id)
            }
            return (ids, characters)
        }
        precondition(ids == run.dataset.todoIDsByCreationDate, "SQLite's rows are not in createdAt order")
        let expected = run.dataset.todoNameBytes
        precondition(characters == expected, "read \(characters) bytes of names, expected \(expected)")
        try queue.close()
        return seconds
    }
}
