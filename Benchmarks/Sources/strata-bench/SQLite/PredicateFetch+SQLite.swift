import GRDB

extension PredicateFetch {
    /// `age BETWEEN 100 AND 200`, as GRDB's query interface spells it.
    private static var agedHundredToTwoHundred: QueryInterfaceRequest<Person> {
        Person.filter((100...200).contains(Person.Columns.age))
    }

    /// Opens a copy of the people database and times `SELECT COUNT(*) … WHERE age BETWEEN
    /// 100 AND 200`.
    static func sqliteCount(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.personDatabase(for: run))
        let seconds = try Stopwatch.seconds {
            try queue.read { db in try agedHundredToTwoHundred.fetchCount(db) }
        }
        try queue.close()
        return seconds
    }

    /// Opens a copy of the people database and times fetching the ids of the same rows.
    static func sqliteIDs(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.personDatabase(for: run))
        let seconds = try Stopwatch.seconds {
            try queue.read { db in
                try agedHundredToTwoHundred.select(Person.Columns.id, as: Int64.self).fetchAll(db)
            }
        }
        try queue.close()
        return seconds
    }

    /// The same ids through GRDB's `async` read, timed until the result is back.
    static func sqliteIDsAsync(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.personDatabase(for: run))
        let seconds = try await Stopwatch.secondsAwaiting {
            try await queue.read { db in
                try agedHundredToTwoHundred.select(Person.Columns.id, as: Int64.self).fetchAll(db)
            }
        }
        try queue.close()
        return seconds
    }
}
