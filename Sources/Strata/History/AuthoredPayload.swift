internal import StrataStorage

/// The author of a transaction, carried in its log frame so that history rebuilt from the
/// log after a crash names it too (layout in `docs/FORMAT.md`, "Authored transactions").
///
/// Only stores that keep persistent history write it, and only for a transaction with an
/// author: the frame's kind gets ``flag`` and its payload starts with `u16` length and the
/// author's UTF-8 bytes. Every other frame is unchanged.
enum AuthoredPayload {
    /// Set in a frame's kind when its payload starts with the author.
    static let flag: UInt8 = 0x80

    /// The frame kind and payload for a transaction of `kind` by `author`.
    static func wrap(kind: TransactionKind, author: String?, payload: [UInt8]) -> (UInt8, [UInt8]) {
        guard let author else { return (kind.rawValue, payload) }
        let utf8 = Array(author.utf8.prefix(Int(UInt16.max)))
        var w = ByteWriter(capacity: 2 + utf8.count + payload.count)
        w.write(UInt16(utf8.count))
        w.write(utf8)
        w.write(payload)
        return (kind.rawValue | flag, w.bytes)
    }

    /// `record` without its author (kind and payload as an unauthored frame has them), and
    /// the author.
    ///
    /// - Throws: ``PayloadError`` when the author runs past the payload.
    static func split(_ record: LogRecord) throws -> (LogRecord, String?) {
        guard record.kind & flag != 0 else { return (record, nil) }
        var r = ByteReader(record.payload)
        let length = Int(try r.readUInt16())
        let author = String(decoding: try r.readBytes(length), as: UTF8.self)
        var plain = record
        plain.kind = record.kind & ~flag
        plain.payload = Array(record.payload[(2 + length)...])
        return (plain, author)
    }
}
