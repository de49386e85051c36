extension Report {
    /// The results as an aligned plain-text table, one row per workload.
    var table: String {
        let header = ["#", "workload", "Strata", "SQLite/GRDB", "ratio", "target", "verdict"]
        var rows = [header]
        for result in results {
            let unit = result.workload.unit
            rows.append([
                String(result.workload.item),
                result.workload.name,
                cell(result.strata, status: result.strataStatus, unit: unit),
                cell(result.sqlite, status: result.sqliteStatus, unit: unit),
                result.ratio.map { fixed($0, digits: 2) + "×" } ?? "—",
                result.workload.target.describe(unit: unit),
                verdict(result),
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let numeric: Set<Int> = [0, 2, 3, 4]
        let lines = rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return numeric.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ")
        }
        let rule = String(repeating: "-", count: lines[0].count)
        return ([lines[0], rule] + lines.dropFirst()).joined(separator: "\n")
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
