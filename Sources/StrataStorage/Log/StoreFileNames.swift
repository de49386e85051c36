/// The names of the files in a store directory.
///
/// - `wal-<firstLSN>.log`: log segments (LSN zero-padded to 20 digits so names sort).
/// - `snapshot-<LSN>.snap`: snapshots; `*.tmp` files are unfinished and removed on open.
/// - `lock`: the writer lock file.
/// - `*.quarantine`: data moved aside by point-in-time recovery, never deleted by Strata.
public enum StoreFileNames {
    /// The writer lock file's name.
    public static let lock = "lock"

    /// The name of the segment whose first frame has `firstLSN`.
    public static func segment(firstLSN: UInt64) -> String { "wal-\(padded(firstLSN)).log" }

    /// The name of the snapshot of the state at `lsn`.
    public static func snapshot(lsn: UInt64) -> String { "snapshot-\(padded(lsn)).snap" }

    /// The first LSN encoded in a segment name, or `nil` if `name` is not a segment.
    public static func segmentLSN(_ name: String) -> UInt64? { parse(name, prefix: "wal-", suffix: ".log") }

    /// The LSN encoded in a snapshot name, or `nil` if `name` is not a snapshot.
    public static func snapshotLSN(_ name: String) -> UInt64? { parse(name, prefix: "snapshot-", suffix: ".snap") }

    /// The directory that holds `path`: `"."` for a bare name, `"/"` for a top-level path.
    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    static func padded(_ value: UInt64) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    private static func parse(_ name: String, prefix: String, suffix: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix),
              name.count == prefix.count + 20 + suffix.count else { return nil }
        return UInt64(name.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
