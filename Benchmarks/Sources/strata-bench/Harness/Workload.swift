/// One engine's side of a workload: given a fresh run context, performs the work and returns
/// the figure in the workload's unit (seconds, bytes or events per second). Only the work
/// being measured is timed; setup (copying fixtures, generating rows) is not.
typealias Measurement = @Sendable (RunContext) async throws -> Double

/// How the SQLite/GRDB figure of a workload is obtained.
enum SQLiteSide: Sendable {
    /// Measured by this function.
    case measured(Measurement)
    /// The same figure as the named workload's SQLite side (issue 8 compares batch insert with
    /// GRDB's ordinary insert); measured once and reused.
    case sameAs(String)
}

/// A named benchmark: the same work on Strata and on SQLite/GRDB, and the target Strata must
/// reach.
struct Workload: Sendable {
    /// The name used by `--only` and in the JSON, e.g. "batch-update".
    let name: String
    /// The names `--only` also accepts for this workload, e.g. "predicate" for all three
    /// predicate workloads.
    let group: String
    /// The item number in issue 8's list of workloads (1...10).
    let item: Int
    /// One line: what is measured, on both sides.
    let summary: String
    let unit: MetricUnit
    let target: Target
    /// Runs per side; `nil` means the `--runs` option. Deterministic figures need one run.
    let runs: Int?
    /// Whether ``runs`` is 1 only because the SQLite side is slow (the observe workloads'
    /// 20 refetches of a million rows), not because one run is enough: `--encryption`, which
    /// runs no SQLite side, then takes the `--runs` option, and the median of that many
    /// tail latencies rather than a single one.
    let oneRunForSQLite: Bool
    let strata: Measurement
    /// The GRDB-records side (issue 8's).
    let sqlite: SQLiteSide
    /// SQLite at its best (issue 21), or `nil` where only the records side exists.
    let best: SQLiteBest?
    /// Which SQLite figure a ratio target is judged against: the best one when there is one,
    /// unless the workload says otherwise.
    let judgedAgainst: JudgedAgainst
    /// Whether the figure grows with N, so that the report prints it per object (false for
    /// latencies of one save and rates).
    let perObject: Bool

    init(name: String, group: String? = nil, item: Int, summary: String, unit: MetricUnit,
         target: Target, runs: Int? = nil, oneRunForSQLite: Bool = false, strata: @escaping Measurement, sqlite: SQLiteSide,
         best: SQLiteBest? = nil, judgedAgainst: JudgedAgainst? = nil, perObject: Bool = true) {
        self.name = name
        self.group = group ?? name
        self.item = item
        self.summary = summary
        self.unit = unit
        self.target = target
        self.runs = runs
        self.oneRunForSQLite = oneRunForSQLite
        self.strata = strata
        self.sqlite = sqlite
        self.best = best
        self.judgedAgainst = judgedAgainst ?? (best == nil ? .records : .best)
        self.perObject = perObject && (unit == .seconds || unit == .bytes)
    }
}
