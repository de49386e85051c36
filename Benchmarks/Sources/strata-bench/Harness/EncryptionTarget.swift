/// How much encryption at rest may cost a workload (issue 23): encrypted ÷ plain, judged on
/// the medians of one run.
enum EncryptionTarget: String, Sendable, Codable {
    /// Scans, fetches and open: at most 10% slower (Realm's figure).
    case read
    /// Saves, inserts, batch requests: at most 25% slower.
    case write
    /// Resident memory and bytes on disk, which issue 23 sets no figure for: judged at 10%, as
    /// open is (they are what open leaves behind, and the tag and salt are a few bytes).
    case size

    /// The largest encrypted ÷ plain ratio that meets the target.
    var factor: Double {
        switch self {
        case .read, .size: 1.10
        case .write: 1.25
        }
    }

    /// The target as printed, e.g. "≤ 1.10×".
    var describe: String { "≤ \(fixed(factor, digits: 2))×" }
}
