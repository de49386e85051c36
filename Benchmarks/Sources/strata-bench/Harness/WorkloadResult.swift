/// What happened to one side of a workload.
enum SideStatus: String, Sendable, Codable {
    /// Every run produced a figure.
    case measured
    /// A run threw; see the note.
    case failed
    /// The workload was not run on this side.
    case skipped
}

/// Both sides' figures for one workload.
struct WorkloadResult: Sendable {
    let workload: Workload
    var strataRuns: [Double] = []
    var strataStatus: SideStatus = .skipped
    var sqliteRuns: [Double] = []
    var sqliteStatus: SideStatus = .skipped
    /// SQLite at its best (issue 21); empty and `.skipped` when the workload has no such side.
    var bestRuns: [Double] = []
    var bestStatus: SideStatus = .skipped
    /// Why a side failed, and where a figure comes from, for the report.
    var notes: [String] = []

    /// Strata's median, or `nil` unless every run produced a figure.
    var strata: Double? {
        strataStatus == .measured ? Statistics.median(strataRuns) : nil
    }

    /// SQLite's median, or `nil` unless every run produced a figure.
    var sqlite: Double? {
        sqliteStatus == .measured ? Statistics.median(sqliteRuns) : nil
    }

    /// The best SQLite side's median, or `nil` unless every run produced a figure.
    var best: Double? {
        bestStatus == .measured ? Statistics.median(bestRuns) : nil
    }

    /// Strata's median ÷ the GRDB-records side's median, when both exist.
    var ratio: Double? {
        guard let strata, let sqlite, sqlite > 0 else { return nil }
        return strata / sqlite
    }

    /// Strata's median ÷ the best SQLite side's median, when both exist.
    var bestRatio: Double? {
        guard let strata, let best, best > 0 else { return nil }
        return strata / best
    }

    /// The SQLite figure the target is judged against (``Workload/judgedAgainst``).
    var judgedSQLite: Double? {
        workload.judgedAgainst == .best ? best : sqlite
    }

    /// Strata's median per object (`--scale`), for workloads whose figure grows with N.
    func strataPerObject(scale: Int) -> Double? {
        guard workload.perObject, let strata, scale > 0 else { return nil }
        return strata / Double(scale)
    }

    /// Whether Strata meets the workload's target; `nil` when it cannot be judged.
    func isMet(limits: MachineLimits?) -> Bool? {
        workload.target.isMet(strata: strata, sqlite: judgedSQLite, limits: limits)
    }
}
