/// How much persistent history a store keeps (see ``HistoryLog``).
///
/// History is kept in whole segments: the oldest segment is deleted once the segments after
/// it still hold at least what the policy asks for, so a store keeps between the limit and
/// the limit plus two segments (a segment is a quarter of the limit, or 1 MiB for
/// ``untilPurged``), plus the entries not yet written out (at most 64 KiB, or those since
/// the last checkpoint).
public enum HistoryRetention: Sendable, Hashable {
    /// Keep at least the last `count` transactions.
    case transactions(Int)
    /// Keep at least the last `bytes` bytes of history on disk.
    case bytes(Int64)
    /// Keep everything until `deleteHistory(before:)` purges it. History then grows with
    /// every transaction (about 100 bytes for a small save): purge it regularly.
    case untilPurged

    /// A segment is closed past this many bytes.
    var segmentBytes: Int64 {
        switch self {
        case .bytes(let limit): return max(4096, limit / 4)
        default: return 1 << 20
        }
    }

    /// A segment is closed past this many transactions.
    var segmentTransactions: Int {
        switch self {
        case .transactions(let limit): return max(1, limit / 4)
        default: return Int.max
        }
    }
}
