/// A benchmark of Strata alone — the storage engine (issue 2) or the asynchronous fetch (issue 5):
/// no SQLite side; read against a machine limit measured in the same run where one applies.
struct StorageBenchmark: Sendable {
    /// The name used by `--only` and in the JSON, e.g. "append-1mib".
    let name: String
    /// One line: what is measured.
    let summary: String
    let unit: MetricUnit
    let target: Target
    /// The machine limit the figure is printed against, if any.
    let limit: LimitReference?
    /// Runs; `nil` means the `--runs` option.
    let runs: Int?
    let measure: Measurement

    init(name: String, summary: String, unit: MetricUnit, target: Target,
         limit: LimitReference?, runs: Int? = nil, measure: @escaping Measurement) {
        self.name = name
        self.summary = summary
        self.unit = unit
        self.target = target
        self.limit = limit
        self.runs = runs
        self.measure = measure
    }

    /// The group `--only` accepts for every storage benchmark.
    static let group = "storage"
}

/// Which machine limit a storage benchmark is read against.
enum LimitReference: String, Sendable, Codable {
    /// Sequential 1 MiB writes with one fsync, in bytes per second.
    case sequentialWrite
    /// One 4 KiB append + fdatasync, p50 seconds.
    case fdatasyncP50
    /// Syncs per second one thread can make: 1 ÷ the fdatasync p50 (what commits per second
    /// would be without group commit).
    case serialSyncRate
    /// LZ4 decompression of to-do columns, output bytes per second.
    case lz4Decompress

    /// The limit in the benchmark's unit, when the limits were measured.
    func value(_ limits: MachineLimits?) -> Double? {
        guard let limits else { return nil }
        switch self {
        case .sequentialWrite: return limits.sequentialWriteFsyncBytesPerSecond
        case .fdatasyncP50: return limits.fdatasyncP50
        case .serialSyncRate: return 1 / limits.fdatasyncP50
        case .lz4Decompress: return limits.lz4DecompressBytesPerSecond
        }
    }

    /// What the limit is, for the table.
    var label: String {
        switch self {
        case .sequentialWrite: "seq. write + fsync"
        case .fdatasyncP50: "fdatasync p50"
        case .serialSyncRate: "1 ÷ fdatasync p50"
        case .lz4Decompress: "LZ4 decompress"
        }
    }
}

/// The figures of one storage benchmark.
struct StorageResult: Sendable {
    let benchmark: StorageBenchmark
    var runs: [Double] = []
    var status: SideStatus = .skipped
    var notes: [String] = []

    /// The median, or `nil` unless every run produced a figure.
    var median: Double? {
        status == .measured ? Statistics.median(runs) : nil
    }

    /// The figure ÷ the machine limit, when both exist.
    func ratio(limits: MachineLimits?) -> Double? {
        guard let median, let limit = benchmark.limit?.value(limits), limit > 0 else { return nil }
        return median / limit
    }

    /// Whether the target is met; `nil` when it cannot be judged.
    func isMet(limits: MachineLimits?) -> Bool? {
        benchmark.target.isMet(strata: median, sqlite: nil, limits: limits)
    }
}
