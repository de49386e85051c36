import Foundation
internal import StrataStorage

/// What a store knows about itself: its identity, its schema and the next primary keys.
/// Written as the first log transaction and in every snapshot's metadata.
struct StoreMetadata: Sendable {
    static let formatTag: UInt8 = 1

    var storeID: UUID
    var schema: Schema
    /// The next primary key to hand out, per entity index (snapshot metadata only).
    var nextPrimaryKeys: [Int64]
    /// The schema versions the store has been through (snapshot metadata only; a trailing
    /// section that readers before it ignore).
    var history: [SchemaHistoryEntry] = []

    func encoded(includingKeys: Bool) -> [UInt8] {
        var w = ByteWriter(capacity: 1024)
        w.write(Self.formatTag)
        withUnsafeBytes(of: storeID.uuid) { w.write(raw: $0) }
        let schemaBytes = schema.encodedForStore()
        w.write(UInt32(schemaBytes.count))
        w.write(schemaBytes)
        w.write(UInt32(includingKeys ? nextPrimaryKeys.count : 0))
        if includingKeys { for key in nextPrimaryKeys { w.write(key) } }
        if !history.isEmpty { SchemaHistoryEntry.encode(history, into: &w) }
        return w.bytes
    }

    init(storeID: UUID, schema: Schema, nextPrimaryKeys: [Int64]) {
        self.storeID = storeID
        self.schema = schema
        self.nextPrimaryKeys = nextPrimaryKeys
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.readUInt8() == Self.formatTag else { throw PayloadError("unknown store metadata version") }
        let t = Array(try r.readBytes(16))
        storeID = UUID(uuid: (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15]))
        let length = Int(try r.readUInt32())
        schema = try Schema(storedBytes: try r.readBytes(length))
        let count = Int(try r.readUInt32())
        guard count <= r.remaining / 8 else { throw PayloadError("impossible key count") }
        nextPrimaryKeys = try (0..<count).map { _ in try r.readInt64() }
        if !r.isAtEnd { history = try SchemaHistoryEntry.decode(&r) }
    }
}
