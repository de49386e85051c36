import GRDB

extension OpenAndCount {
    /// Copies the to-do database (not timed), then times opening it and `SELECT COUNT(*)`.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let path = try await SQLiteFixtures.todoDatabase(for: run)
        let (queue, seconds) = try Stopwatch.time {
            let queue = try SQLiteDatabase.openQueue(at: path)
            let count = try queue.read(TodoItem.fetchCount)
            precondition(count == run.scale, "expected \(run.scale) rows, found \(count)")
            return queue
        }
        try queue.close()
        return seconds
    }
}
