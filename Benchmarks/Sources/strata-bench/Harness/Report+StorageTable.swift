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
        return TextTable.render(rows, rightAligned: [1, 2, 3])
    }
}
