/// One committed transaction read back from the log.
public struct LogRecord: Sendable, Hashable {
    /// Its log sequence number.
    public var lsn: UInt64
    /// What it carries, as defined by the layer above.
    public var kind: UInt8
    /// Commit time, microseconds since 1970-01-01 UTC.
    public var timestamp: Int64
    /// The decompressed payload.
    public var payload: [UInt8]
    /// The segment file it came from.
    public var segment: String
    /// Its byte offset in that segment.
    public var offset: Int64
    /// Bytes it takes on disk (header and stored payload).
    public var bytesOnDisk: Int
}
