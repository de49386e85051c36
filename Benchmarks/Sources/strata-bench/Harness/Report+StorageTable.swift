extension Report {
    /// The storage engine's micro-benchmarks as an aligned plain-text table, each figure next
    /// to the machine limit it is read against (measured in the same run).
    var storageTable: String {
        let header = ["benchmark", "Strata", "machine limit", "vs limit", "target", "verdict"]
        var rows = [header]
        for result in storageResults {
            let benchmark = result.benchmark
            let unit = benchmark.unit
            let limit = benchmark.limit.flatMap { reference in
                reference.value(limits).map { unit.format($0) + " " + reference.label }
            }
            let verdict: String = switch result.isMet(limits: limits) {
            case true?: "met"
            case false?: "NOT MET"
            case nil: "n/a"
            }
            rows.append([
                benchmark.name,
                result.median.map { unit.format($0) } ?? (result.status == .failed ? "failed" : "—"),
                limit ?? "—",
                result.ratio(limits: limits).map { fixed($0, digits: 2) + "×" } ?? "—",
                benchmark.target.describe(unit: unit),
                verdict,
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let numeric: Set<Int> = [1, 2, 3]
        let lines = rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return numeric.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ")
        }
        let rule = String(repeating: "-", count: lines[0].count)
        return ([lines[0], rule] + lines.dropFirst()).joined(separator: "\n")
    }
}
