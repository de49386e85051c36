import Foundation

extension Report: Encodable {
    private enum Keys: String, CodingKey {
        case command, date, scale, runs, seed, cores, sqliteVersion, grdbVersion, machine, workloads
        case storage, encryption
    }

    /// Missing figures are written as `null`, never omitted, so a consumer sees that a slot
    /// exists and is empty.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(command, forKey: .command)
        try container.encode(ISO8601DateFormatter().string(from: date), forKey: .date)
        try container.encode(scale, forKey: .scale)
        try container.encode(runs, forKey: .runs)
        try container.encode(seed, forKey: .seed)
        try container.encode(cores, forKey: .cores)
        try container.encode(sqliteVersion, forKey: .sqliteVersion)
        try container.encode("7.10.0", forKey: .grdbVersion)
        try container.encode(limits, forKey: .machine)
        try container.encode(results.map { Entry(result: $0, limits: limits, scale: scale) }, forKey: .workloads)
        try container.encode(storageResults.map { StorageEntry(result: $0, limits: limits) },
                             forKey: .storage)
        if !encryptionResults.isEmpty {
            try container.encode(EncryptionSection(results: encryptionResults, aesFlags: aesFlags), forKey: .encryption)
        }
    }

    /// The report as pretty-printed JSON with sorted keys.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// One storage benchmark in the JSON report: its figure, the machine limit it is read
    /// against (same unit), figure ÷ limit, and every run.
    private struct StorageEntry: Encodable {
        let result: StorageResult
        let limits: MachineLimits?

        private enum Keys: String, CodingKey {
            case name, summary, unit, target, value, limit, limitValue, ratioToLimit, met, status
            case runs, notes
        }

        func encode(to encoder: any Encoder) throws {
            let benchmark = result.benchmark
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(benchmark.name, forKey: .name)
            try container.encode(benchmark.summary, forKey: .summary)
            try container.encode(benchmark.unit, forKey: .unit)
            try container.encode(benchmark.target.describe(unit: benchmark.unit), forKey: .target)
            try container.encode(result.median, forKey: .value)
            try container.encode(benchmark.limit, forKey: .limit)
            try container.encode(benchmark.limit?.value(limits), forKey: .limitValue)
            try container.encode(result.ratio(limits: limits), forKey: .ratioToLimit)
            try container.encode(result.isMet(limits: limits), forKey: .met)
            try container.encode(result.status, forKey: .status)
            try container.encode(result.runs, forKey: .runs)
            try container.encode(result.notes, forKey: .notes)
        }
    }

    /// One workload in the JSON report. Figures are in base units: seconds, bytes or per
    /// second, as `unit` says.
    private struct Entry: Encodable {
        let result: WorkloadResult
        let limits: MachineLimits?
        let scale: Int

        private enum Keys: String, CodingKey {
            case name, group, item, summary, unit, target, strata, sqlite, ratio, met
            case strataStatus, sqliteStatus, strataRuns, sqliteRuns, notes
            case sqliteBest, bestRatio, bestStatus, bestRuns, bestHow, judgedAgainst
            case strataPerObject
        }

        func encode(to encoder: any Encoder) throws {
            let workload = result.workload
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(workload.name, forKey: .name)
            try container.encode(workload.group, forKey: .group)
            try container.encode(workload.item, forKey: .item)
            try container.encode(workload.summary, forKey: .summary)
            try container.encode(workload.unit, forKey: .unit)
            try container.encode(workload.target.describe(unit: workload.unit), forKey: .target)
            try container.encode(result.strata, forKey: .strata)
            try container.encode(result.sqlite, forKey: .sqlite)
            try container.encode(result.ratio, forKey: .ratio)
            try container.encode(result.isMet(limits: limits), forKey: .met)
            try container.encode(result.strataStatus, forKey: .strataStatus)
            try container.encode(result.sqliteStatus, forKey: .sqliteStatus)
            try container.encode(result.strataRuns, forKey: .strataRuns)
            try container.encode(result.sqliteRuns, forKey: .sqliteRuns)
            try container.encode(result.notes, forKey: .notes)
            try container.encode(result.best, forKey: .sqliteBest)
            try container.encode(result.bestRatio, forKey: .bestRatio)
            try container.encode(result.bestStatus, forKey: .bestStatus)
            try container.encode(result.bestRuns, forKey: .bestRuns)
            try container.encode(workload.best?.how, forKey: .bestHow)
            try container.encode(workload.judgedAgainst, forKey: .judgedAgainst)
            try container.encode(result.strataPerObject(scale: scale), forKey: .strataPerObject)
        }
    }
}
