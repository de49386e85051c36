extension Report {
    /// The results as an aligned plain-text table, one row per workload.
    var table: String {
        let header = ["#", "workload", "Strata", "per object", "SQLite best", "ratio",
                      "GRDB records", "ratio", "target", "vs", "verdict"]
        var rows = [header]
        for result in results {
            let unit = result.workload.unit
            rows.append([
                String(result.workload.item),
                result.workload.name,
                cell(result.strata, status: result.strataStatus, unit: unit),
                result.strataPerObject(scale: scale).map { perObject($0, unit: unit) } ?? "—",
                cell(result.best, status: result.bestStatus, unit: unit),
                result.bestRatio.map { fixed($0, digits: 2) + "×" } ?? "—",
                cell(result.sqlite, status: result.sqliteStatus, unit: unit),
                result.ratio.map { fixed($0, digits: 2) + "×" } ?? "—",
                result.workload.target.describe(unit: unit),
                result.workload.judgedAgainst.rawValue,
                verdict(result),
            ])
        }
        return TextTable.render(rows, rightAligned: [0, 2, 3, 4, 5, 6, 7])
    }

    /// What the best SQLite side of each workload does, indexes included, one line each.
    var bestSides: String {
        results.compactMap { result in
            result.workload.best.map { "  \(result.workload.name): \($0.how)" }
        }.joined(separator: "\n")
    }

    /// A per-object figure: nanoseconds for times, bytes for sizes.
    private func perObject(_ value: Double, unit: MetricUnit) -> String {
        switch unit {
        case .seconds: fixed(value * 1e9, digits: value * 1e9 < 10 ? 2 : 0) + " ns"
        case .bytes: fixed(value, digits: 1) + " B"
        default: "—"
        }
    }

    private func cell(_ value: Double?, status: SideStatus, unit: MetricUnit) -> String {
        if let value { return unit.format(value) }
        switch status {
        case .failed: return "failed"
        case .measured, .skipped: return "—"
        }
    }

    private func verdict(_ result: WorkloadResult) -> String {
        switch result.isMet(limits: limits) {
        case true?: "met"
        case false?: "NOT MET"
        case nil: "n/a"
        }
    }
}
