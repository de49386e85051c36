import Foundation

/// Runs workloads: each side `runs` times, each run in a fresh directory that is deleted
/// afterwards, after the disk has settled (``Files/settle()``).
final class Runner {
    let dataset: Dataset
    let runsRoot: URL
    private let plainFixtures: FixtureCache
    /// The fixtures of encrypted runs (`--encryption`): the same stores, encrypted with
    /// ``BenchEncryption/testKey``, kept apart from the plain ones.
    private let encryptedFixtures: FixtureCache
    let limits: MachineLimits?
    let defaultRuns: Int
    /// SQLite figures by workload name, for ``SQLiteSide/sameAs(_:)``.
    private var sqliteRunsByName: [String: [Double]] = [:]
    /// Best-SQLite figures by workload name, for ``SQLiteBest/Source/sameAs(_:)``.
    private var bestRunsByName: [String: [Double]] = [:]

    init(dataset: Dataset, workRoot: URL, limits: MachineLimits?, defaultRuns: Int) throws {
        self.dataset = dataset
        self.runsRoot = try Files.freshDirectory("runs", in: workRoot)
        self.plainFixtures = FixtureCache(root: try Files.freshDirectory("fixtures", in: workRoot))
        self.encryptedFixtures = FixtureCache(root: try Files.freshDirectory("fixtures-encrypted", in: workRoot))
        self.limits = limits
        self.defaultRuns = defaultRuns
    }

    /// Runs both sides of `workload`, SQLite first.
    func run(_ workload: Workload) async -> WorkloadResult {
        var result = WorkloadResult(workload: workload)
        let runs = workload.runs ?? defaultRuns

        switch workload.sqlite {
        case .measured(let measure):
            (result.sqliteRuns, result.sqliteStatus) = await repeated(
                workload.name, unit: workload.unit, side: "sqlite", runs: runs, measure,
                notes: &result.notes)
            if result.sqliteStatus == .measured { sqliteRunsByName[workload.name] = result.sqliteRuns }
        case .sameAs(let name):
            if let reused = sqliteRunsByName[name] {
                (result.sqliteRuns, result.sqliteStatus) = (reused, .measured)
            } else if let source = Registry.workload(named: name), case .measured(let measure) = source.sqlite {
                (result.sqliteRuns, result.sqliteStatus) = await repeated(
                    source.name, unit: source.unit, side: "sqlite", runs: source.runs ?? defaultRuns,
                    measure, notes: &result.notes)
                if result.sqliteStatus == .measured { sqliteRunsByName[name] = result.sqliteRuns }
            }
            result.notes.append("SQLite figure is \(name)'s")
        }

        if let best = workload.best {
            await runBest(best, of: workload, runs: runs, into: &result)
        }

        (result.strataRuns, result.strataStatus) = await repeated(
            workload.name, unit: workload.unit, side: "strata", runs: runs, workload.strata,
            notes: &result.notes)
        return result
    }

    /// Measures (or reuses) the best SQLite side of `workload` into `result`.
    private func runBest(_ best: SQLiteBest, of workload: Workload, runs: Int,
                         into result: inout WorkloadResult) async {
        switch best.source {
        case .sameAsRecords:
            (result.bestRuns, result.bestStatus) = (result.sqliteRuns, result.sqliteStatus)
        case .measured(let measure):
            (result.bestRuns, result.bestStatus) = await repeated(
                workload.name, unit: workload.unit, side: "sqlite-best", runs: runs, measure,
                notes: &result.notes)
        case .sameAs(let name):
            if let reused = bestRunsByName[name] {
                (result.bestRuns, result.bestStatus) = (reused, .measured)
            } else if let source = Registry.workload(named: name),
                      case .measured(let measure)? = source.best?.source {
                (result.bestRuns, result.bestStatus) = await repeated(
                    source.name, unit: source.unit, side: "sqlite-best",
                    runs: source.runs ?? defaultRuns, measure, notes: &result.notes)
            }
            result.notes.append("best SQLite figure is \(name)'s")
        }
        if result.bestStatus == .measured { bestRunsByName[workload.name] = result.bestRuns }
    }

    /// The fixture cache of plain or of encrypted runs.
    func fixtures(encrypted: Bool) -> FixtureCache {
        encrypted ? encryptedFixtures : plainFixtures
    }

    /// Runs a storage engine micro-benchmark.
    func run(_ benchmark: StorageBenchmark) async -> StorageResult {
        var result = StorageResult(benchmark: benchmark)
        (result.runs, result.status) = await repeated(
            benchmark.name, unit: benchmark.unit, side: "storage", runs: benchmark.runs ?? defaultRuns,
            benchmark.measure, notes: &result.notes)
        return result
    }

    /// Runs `measure` up to `runs` times; stops at the first failed run.
    private func repeated(_ workloadName: String, unit: MetricUnit, side: String, runs: Int,
                          _ measure: Measurement, notes: inout [String]) async -> ([Double], SideStatus) {
        var values: [Double] = []
        for index in 0..<runs {
            let name = "\(workloadName)-\(side)-\(index + 1)"
            do {
                let directory = try Files.freshDirectory(name, in: runsRoot)
                defer { try? FileManager.default.removeItem(at: directory) }
                Files.settle()
                let context = RunContext(dataset: dataset, directory: directory,
                                         fixtures: fixtures(encrypted: false), limits: limits)
                let value = try await measure(context)
                values.append(value)
                log("\(name): \(unit.format(value))")
            } catch {
                notes.append("\(side) failed: \(error)")
                log("\(name): FAILED: \(error)")
                return ([], .failed)
            }
        }
        return (values, .measured)
    }
}
