import GRDB

extension PredicateFetch {
    /// The count with ``SQLiteBestFixtures/personAgeIndex``: an index-only range scan.
    static let bestCountSQL = "SELECT COUNT(*) FROM person WHERE age BETWEEN 100 AND 200"
    /// The ids with the same index; they come in (age, id) order, so the check sorts them
    /// outside the timed part (the Strata side returns them in key order at no cost).
    static let bestIDsSQL = "SELECT id FROM person WHERE age BETWEEN 100 AND 200"

    /// Opens a copy of the indexed people database and times ``bestCountSQL`` through one
    /// prepared statement. The count must be the dataset's.
    static func sqliteBestCount(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteBestFixtures.indexedPersonDatabase(for: run))
        let (count, seconds) = try Stopwatch.time {
            try queue.read { db in
                let statement = try RawStatement(bestCountSQL, in: db)
                _ = try statement.step()
                return Int(statement.int64(0))
            }
        }
        let expected = run.dataset.idsOfPeopleAgedHundredToTwoHundred.count
        precondition(count == expected, "SQLite counted \(count) people aged 100 to 200, expected \(expected)")
        try queue.close()
        return seconds
    }

    /// Opens a copy of the indexed people database and times fetching the ids through
    /// ``bestIDsSQL``. The ids, sorted, must be the dataset's.
    static func sqliteBestIDs(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteBestFixtures.indexedPersonDatabase(for: run))
        let (ids, seconds) = try Stopwatch.time {
            try queue.read { db in try fetchBestIDs(db) }
        }
        checkBest(ids, run)
        try queue.close()
        return seconds
    }

    /// The same ids through GRDB's `async` read, timed until the result is back.
    static func sqliteBestIDsAsync(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteBestFixtures.indexedPersonDatabase(for: run))
        var ids: [Int64] = []
        let seconds = try await Stopwatch.secondsAwaiting {
            ids = try await queue.read { db in try fetchBestIDs(db) }
            return ids.count
        }
        checkBest(ids, run)
        try queue.close()
        return seconds
    }

    /// Steps ``bestIDsSQL`` once, collecting the ids.
    private static func fetchBestIDs(_ db: Database) throws -> [Int64] {
        let statement = try RawStatement(bestIDsSQL, in: db)
        var ids: [Int64] = []
        while try statement.step() { ids.append(statement.int64(0)) }
        return ids
    }

    /// Stops the benchmark unless `ids`, sorted, are exactly the dataset's people aged 100 to
    /// 200.
    private static func checkBest(_ ids: [Int64], _ run: RunContext) {
        let expected = run.dataset.idsOfPeopleAgedHundredToTwoHundred
        precondition(ids.sorted() == expected, "SQLite fetched \(ids.count) ids, expected the dataset's \(expected.count)")
    }
}
