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

    /// Strata's median ÷ SQLite's median, when both exist.
    var ratio: Double? {
        guard let strata, let sqlite, sqlite > 0 else { return nil }
        return strata / sqlite
    }

    /// Whether Strata meets the workload's target; `nil` when it cannot be judged.
    func isMet(limits: MachineLimits?) -> Bool? {
        workload.target.isMet(strata: strata, sqlite: sqlite, limits: limits)
    }
}
