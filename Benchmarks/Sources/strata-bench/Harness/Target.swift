/// The goal a workload's Strata figure must reach, from issue 8.
enum Target: Sendable {
    /// Strata's median at most `factor` × SQLite's median (time or size).
    case ratioAtMost(Double)
    /// Strata's median at most this many base units (seconds or bytes).
    case atMost(Double)
    /// Strata's median at least this many base units (events per second).
    case atLeast(Double)
    /// Strata's median at most `factor` × the machine's fdatasync p50, measured in the same run.
    case fdatasyncMultipleAtMost(Double)
    /// Strata's throughput at least the machine's sequential write + fsync speed ÷ `factor`
    /// ("within `factor`× of the disk"), measured in the same run.
    case sequentialWriteWithin(Double)

    /// The target as printed in the table, e.g. "≤ 0.1×", "≤ 100 ms", "≥ 10,000/s".
    func describe(unit: MetricUnit) -> String {
        switch self {
        case .ratioAtMost(let factor): "≤ \(fixed(factor, digits: 1))×"
        case .atMost(let limit): "≤ " + unit.format(limit, compact: true)
        case .atLeast(let limit): "≥ " + unit.format(limit, compact: true)
        case .fdatasyncMultipleAtMost(let factor): "≤ \(trimmed(factor))× fdatasync"
        case .sequentialWriteWithin(let factor): "≥ 1/\(trimmed(factor)) seq. write"
        }
    }

    /// Whether `strata` meets the target, or `nil` when it cannot be judged (no Strata
    /// figure yet, no SQLite figure to compare with, or the machine limit was not measured).
    func isMet(strata: Double?, sqlite: Double?, limits: MachineLimits?) -> Bool? {
        guard let strata else { return nil }
        switch self {
        case .ratioAtMost(let factor):
            guard let sqlite, sqlite > 0 else { return nil }
            return strata / sqlite <= factor
        case .atMost(let limit):
            return strata <= limit
        case .atLeast(let limit):
            return strata >= limit
        case .fdatasyncMultipleAtMost(let factor):
            guard let limits else { return nil }
            return strata <= factor * limits.fdatasyncP50
        case .sequentialWriteWithin(let factor):
            guard let limits else { return nil }
            return strata * factor >= limits.sequentialWriteFsyncBytesPerSecond
        }
    }

    private func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
