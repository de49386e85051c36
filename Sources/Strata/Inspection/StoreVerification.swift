/// The result of verifying a store: what was checked, and every problem found.
///
/// A store is sound when no finding is an ``Finding/Severity/error``; warnings (such as a
/// torn final transaction, which the next writable open cuts off) do not make it unsound.
public struct VerificationReport: Sendable, Hashable {
    /// One problem found by verification.
    public struct Finding: Sendable, Hashable {
        /// How serious a finding is.
        public enum Severity: String, Sendable, Hashable {
            /// Data is damaged or inconsistent.
            case error
            /// Worth knowing, but no committed data is at risk.
            case warning
        }
        /// How serious it is.
        public var severity: Severity
        /// What it is, in one sentence.
        public var message: String
        /// The file involved, when there is one.
        public var file: String?
        /// The byte offset in that file, when known.
        public var offset: Int64?
    }

    /// The checks that ran, in order, each with what it covered (`"12 log frames: checksums"`).
    public var checks: [String] = []
    /// Every problem found.
    public var findings: [Finding] = []
    /// Whether deep invariants were checked too.
    public var deep = false

    /// Whether no finding is an error.
    public var isSound: Bool { !findings.contains { $0.severity == .error } }
    /// The first error that names a file, for a one-line summary.
    public var firstCorruption: Finding? { findings.first { $0.severity == .error && $0.file != nil } }

    mutating func error(_ message: String, file: String? = nil, offset: Int64? = nil) {
        findings.append(Finding(severity: .error, message: message, file: file, offset: offset))
    }

    mutating func warning(_ message: String, file: String? = nil, offset: Int64? = nil) {
        findings.append(Finding(severity: .warning, message: message, file: file, offset: offset))
    }
}
