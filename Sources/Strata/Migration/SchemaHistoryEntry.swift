internal import StrataStorage

/// One schema version a store has been through: the transaction that created the store or
/// migrated it (see `strata schema STORE --history`).
public struct SchemaHistoryEntry: Sendable, Hashable {
    /// The LSN of the transaction that recorded this version (the store's first one, or a
    /// migration).
    public var lsn: UInt64
    /// The version identifier from the migration plan (such as `"2.0.0"`), or empty when
    /// the migration was inferred or the store was created without one.
    public var label: String
    /// What changed from the previous version, one sentence per change (empty for the first).
    public var changes: [String]

    /// Creates an entry.
    public init(lsn: UInt64, label: String, changes: [String]) {
        self.lsn = lsn
        self.label = label
        self.changes = changes
    }

    static let sectionTag: UInt8 = 1

    /// `u8` tag 1, `u32` count, then per entry `u64` LSN, the label and `u32` count + that
    /// many change sentences (strings: `u32` length + UTF-8).
    static func encode(_ entries: [SchemaHistoryEntry], into w: inout ByteWriter) {
        w.write(sectionTag)
        w.write(UInt32(entries.count))
        for entry in entries {
            w.write(entry.lsn)
            w.writeString(entry.label)
            w.write(UInt32(entry.changes.count))
            for change in entry.changes { w.writeString(change) }
        }
    }

    static func decode(_ r: inout ByteReader) throws -> [SchemaHistoryEntry] {
        guard try r.readUInt8() == sectionTag else { throw PayloadError("unknown schema history section") }
        let count = Int(try r.readUInt32())
        guard count <= r.remaining / 16 else { throw PayloadError("impossible schema history length") }
        return try (0..<count).map { _ in
            let lsn = try r.readUInt64()
            let label = try r.readString()
            let changeCount = Int(try r.readUInt32())
            guard changeCount <= r.remaining / 4 else { throw PayloadError("impossible change count") }
            return SchemaHistoryEntry(lsn: lsn, label: label, changes: try (0..<changeCount).map { _ in try r.readString() })
        }
    }
}
