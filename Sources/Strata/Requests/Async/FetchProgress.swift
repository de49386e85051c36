/// How far an asynchronous fetch has got.
public struct FetchProgress: Sendable, Hashable {
    /// Records found so far (Core Data's completed unit count).
    public var found: Int
    /// Rows looked at so far.
    public var scanned: Int
    /// Rows in the version being scanned.
    public var total: Int
    /// Whether this is the last update (`found` is then the result count).
    public var isFinished: Bool

    /// `scanned / total` (1 for an empty entity).
    public var fraction: Double { total == 0 ? 1 : Double(scanned) / Double(total) }
}

extension StrataError.Code {
    /// An asynchronous fetch was cancelled; there is no partial result.
    public static let cancelled = Self(rawValue: "cancelled")
}
