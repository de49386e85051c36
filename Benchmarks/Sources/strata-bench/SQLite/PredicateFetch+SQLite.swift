import GRDB

extension PredicateFetch {
    /// `age BETWEEN 100 AND 200`, as GRDB's query interface spells it.
    private static var agedHundredToTwoHundred: QueryInterfaceRequest<Person> {
        Person.filter((100...200).contains(Person.Columns.age))
    }

    /// Opens a copy of the people database and times `SELECT COUNT(*) … WHERE age BETWEEN
    /// 100 AND 200`. The count must be the dataset's.
    static func sqliteCount(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.personDatabase(for: run))
        let (count, seconds) = try Stopwatch.time {
            try queue.read { db in try agedHundredToTwoHundred.fetchCount(db) }
        }
        let expected = run.dataset.idsOfPeopleAgedHundredToTwoHundred.count
        precondition(count == expected, "SQLite counted \(count) people aged 100 to 200, expected \(expected)")
        try queue.close()
        return seconds
    }

    /// Opens a copy of the people database and times fetching the ids of the same rows. The
    /// ids must be the dataset's, in id order.
    static func sqliteIDs(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.personDatabase(for: run))
        let (ids, seconds) = try Stopwatch.time {
            try queue.read { db in
                try agedHundredToTwoHundred.select(Person.Columns.id, as: Int64.self).fetchAll(db)
            }
        }
        checkSQLite(ids, run)
        try queue.close()
        return seconds
    }

    /// The same ids through GRDB's `async` read, timed until the result is back.
    static func sqliteIDsAsync(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.personDatabase(for: run))
        var ids: [Int64] = []
        let seconds = try await Stopwatch.secondsAwaiting {
            ids = try await queue.read { db in
                try agedHundredToTwoHundred.select(Person.Columns.id, as: Int64.self).fetchAll(db)
            }
            return ids.count
        }
        checkSQLite(ids, run)
        try queue.close()
        return seconds
    }

    /// Stops the benchmark unless `ids` are exactly the dataset's people aged 100 to 200, in
    /// id order.
    private static func checkSQLite(_ ids: [Int64], _ run: RunContext) {
        let expected = run.dataset.idsOfPeopleAgedHundredToTwoHundred
        precondition(ids == expected, "SQLite fetched \(ids.count) ids, expected the dataset's \(expected.count)")
    }
}
