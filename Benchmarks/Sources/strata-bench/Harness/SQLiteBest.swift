/// The SQLite side of a workload as a SQLite user who cares about speed would write it
/// (issue 21): one prepared statement reused in one transaction, plain `UPDATE` / `DELETE`
/// statements, and the indexes the query wants. Reported beside the GRDB-records side.
struct SQLiteBest: Sendable {
    /// Where the figure comes from.
    enum Source: Sendable {
        /// Measured by this function.
        case measured(Measurement)
        /// The GRDB-records side of this workload already is SQLite at its best (say, one
        /// `UPDATE` statement); its figure is reused.
        case sameAsRecords
        /// The best side of the named workload, measured once and reused.
        case sameAs(String)
    }

    let source: Source
    /// What the best side does, printed under the table: the statement and every index it
    /// creates, e.g. "CREATE INDEX person_age ON person(age); SELECT COUNT(*) …".
    let how: String

    init(_ source: Source, how: String) {
        self.source = source
        self.how = how
    }
}

/// Which SQLite figure a workload's ratio target is judged against.
enum JudgedAgainst: String, Sendable, Codable {
    /// SQLite at its best (issue 21's rule).
    case best
    /// The GRDB-records side, for targets set "unindexed on both sides".
    case records
}
