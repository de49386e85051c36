/// One workload's Strata side on plain and on encrypted stores, measured alternately in one
/// run (plain 1, encrypted 1, plain 2, …).
struct EncryptionResult: Sendable {
    let workload: Workload
    let target: EncryptionTarget
    var plainRuns: [Double] = []
    var encryptedRuns: [Double] = []
    var status: SideStatus = .skipped
    /// Encrypted stores checked after the encrypted runs (``BenchEncryption/requireEncryptedStores(under:)``).
    var storesChecked = 0
    /// Why a run failed, for the report.
    var notes: [String] = []

    /// The plain median, or `nil` unless every run produced a figure.
    var plain: Double? { status == .measured ? Statistics.median(plainRuns) : nil }

    /// The encrypted median, or `nil` unless every run produced a figure.
    var encrypted: Double? { status == .measured ? Statistics.median(encryptedRuns) : nil }

    /// What encryption costs, as a factor above 1: encrypted ÷ plain for times and sizes,
    /// plain ÷ encrypted for rates (saves per second), so that 1.10 always means 10% worse.
    var ratio: Double? {
        guard let plain, let encrypted, plain > 0, encrypted > 0 else { return nil }
        return workload.unit.lowerIsBetter ? encrypted / plain : plain / encrypted
    }

    /// Whether ``ratio`` meets the target; `nil` without figures.
    var isMet: Bool? { ratio.map { $0 <= target.factor } }
}
