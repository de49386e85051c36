import GRDB

extension DurableSave {
    /// On a new WAL database with `synchronous = FULL`, times one-row write transactions one
    /// after another and returns the median latency.
    static func sqliteLatency(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(
            at: run.directory.appendingPathComponent(SQLiteDatabase.todoFile).path)
        try await queue.write(TodoItem.createTable)
        let latencies = try saveOneByOne(queue, run)
        try queue.close()
        return Statistics.percentile(50, of: latencies)!
    }

    /// The latencies of one-row transactions committed one after another (blocking calls).
    private static func saveOneByOne(_ queue: DatabaseQueue, _ run: RunContext) throws -> [Double] {
        var latencies: [Double] = []
        let start = Stopwatch.now
        while latencies.count < maximumSaves, Stopwatch.seconds(since: start) < timeBudget {
            let row = item(latencies.count, of: run)
            latencies.append(try Stopwatch.seconds {
                try queue.write { db in try row.insert(db) }
            })
        }
        return latencies
    }

    /// On a new WAL `DatabasePool` with `synchronous = FULL`, ``writers`` threads each commit
    /// one-row write transactions; returns commits per second of wall-clock time.
    static func sqliteConcurrent(_ run: RunContext) async throws -> Double {
        let pool = try SQLiteDatabase.openPool(
            at: run.directory.appendingPathComponent(SQLiteDatabase.todoFile).path)
        try await pool.write(TodoItem.createTable)
        let tickets = TicketCounter()
        let start = Stopwatch.now
        let committed = try onThreads(writers) { _ in
            var mine = 0
            while Stopwatch.seconds(since: start) < timeBudget {
                let index = tickets.take()
                guard index < maximumSaves else { break }
                let row = item(index, of: run)
                try pool.write { db in try row.insert(db) }
                mine += 1
            }
            return mine
        }
        let seconds = Stopwatch.seconds(since: start)
        try pool.close()
        return Double(committed.reduce(0, +)) / seconds
    }
}
