import GRDB

extension ContextInsert {
    /// The insert as a SQLite user at their best writes it: one prepared
    /// `INSERT INTO todo (id, name, createdAt, done) VALUES (?, ?, ?, ?)`, bound, stepped and
    /// reset for every item, in one transaction (commit included).
    static let bestSQL = "INSERT INTO todo (id, name, createdAt, done) VALUES (?, ?, ?, ?)"

    /// Creates an empty `todo` table, then times inserting every item through ``bestSQL``.
    /// Afterwards (not timed) the table must hold N rows.
    static func sqliteBest(_ run: RunContext) async throws -> Double {
        let path = run.directory.appendingPathComponent(SQLiteDatabase.todoFile).path
        let queue = try SQLiteDatabase.openQueue(at: path)
        try await queue.write(TodoItem.createTable)
        let items = run.dataset.todoItems
        let seconds = try Stopwatch.seconds {
            try queue.write { db in try insertBest(db, items) }
        }
        let count = try await queue.read { db in try TodoItem.fetchCount(db) }
        precondition(count == run.scale, "expected \(run.scale) rows, found \(count)")
        try queue.close()
        return seconds
    }

    /// Inserts `items` through ``bestSQL``, bound, stepped and reset per row, in the caller's
    /// transaction.
    static func insertBest(_ db: Database, _ items: [TodoItem]) throws {
        let insert = try RawStatement(bestSQL, in: db)
        for item in items {
            insert.bind(1, item.id)
            insert.bind(2, item.name)
            insert.bind(3, item.createdAt.timeIntervalSince1970)
            insert.bind(4, item.done ? 1 as Int64 : 0)
            _ = try insert.step()
            insert.reset()
        }
    }
}
