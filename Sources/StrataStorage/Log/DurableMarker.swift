/// The durable-LSN marker (`durable-lsn`, `docs/FORMAT.md` section 6.3): a lazily written
/// record of the highest LSN known to be on stable storage, so that recovery can tell damage
/// to the last, synced frames of the log from a torn write.
///
/// A frame's own `syncedLSN` proves that the frames *before* it were synced; nothing after the
/// last frame can say the same for it. The marker does: it is written after every successful
/// log sync (one small positional write, not synced itself) and synced at rotation, close and
/// every writable open. It only ever claims LSNs that were synced before it was written, so
/// whatever of it reaches the disk is true; a stale or missing marker only means recovery
/// knows less and falls back to the `syncedLSN` rule.
///
/// The file holds two 32-byte slots, written alternately; each carries a sequence number and
/// a checksum, so a torn write of one slot leaves the other.
struct DurableMarker: Sendable, Hashable {
    static let fileName = "durable-lsn"
    static let magic: [UInt8] = Array("STRATADL".utf8)
    static let slotSize = 32

    /// The salt of the log generation the LSN belongs to.
    var salt: UInt32
    /// Every frame with an LSN up to this one was on stable storage when the marker was written.
    var lsn: UInt64
    /// Increases with every write; the valid slot with the highest one wins.
    var sequence: UInt32

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.slotSize)
        w.write(Self.magic)
        w.write(salt)
        w.write(sequence)
        w.write(lsn)
        w.write(UInt32(0))
        w.write(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> DurableMarker? {
        let slot = Array(bytes)
        guard slot.count == slotSize, Array(slot[0..<8]) == magic,
              CRC32C.checksum(Array(slot[0..<28])) == UInt32(littleEndian: slot.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 28, as: UInt32.self) })
        else { return nil }
        var r = ByteReader(slot, offset: 8, end: 28)
        guard let salt = try? r.readUInt32(), let sequence = try? r.readUInt32(), let lsn = try? r.readUInt64() else { return nil }
        return DurableMarker(salt: salt, lsn: lsn, sequence: sequence)
    }

    /// The newest valid slot of the marker in `directory`, or `nil` when there is none (a
    /// store written before the marker existed, or both slots damaged). Never throws: the
    /// marker is a hint, and recovery without it applies the `syncedLSN` rule alone.
    static func read(fileSystem: any FileSystem, directory: String) -> DurableMarker? {
        guard let handle = try? fileSystem.open("\(directory)/\(fileName)", mode: .readOnly),
              let bytes = try? handle.read(count: 2 * slotSize, at: 0) else { return nil }
        try? handle.close()
        let slots = [decode(bytes.prefix(slotSize)), decode(bytes.dropFirst(slotSize).prefix(slotSize))]
        return slots.compactMap { $0 }.max { $0.sequence < $1.sequence }
    }
}

/// Writes the durable-LSN marker for one writable open (used by the log's flusher, one
/// thread at a time, and by recovery before the log exists).
final class DurableMarkerWriter {
    private let handle: any FileHandle
    private var salt: UInt32
    private var sequence: UInt32
    private(set) var lsn: UInt64

    /// Opens (or creates) the marker and records `lsn`, synced: every frame up to `lsn` must
    /// already be on stable storage. The caller syncs the directory (a new marker's name).
    init(fileSystem: any FileSystem, directory: String, salt: UInt32, lsn: UInt64) throws {
        let path = "\(directory)/\(DurableMarker.fileName)"
        let existing = DurableMarker.read(fileSystem: fileSystem, directory: directory)
        if fileSystem.exists(path) {
            handle = try fileSystem.open(path, mode: .readWrite)
        } else {
            handle = try fileSystem.open(path, mode: .createNew)
        }
        self.salt = salt
        sequence = existing?.sequence ?? 0
        self.lsn = lsn
        try write(lsn)
        try handle.sync()
    }

    /// Records that every frame up to `lsn` is on stable storage, without syncing the marker.
    func write(_ lsn: UInt64) throws {
        sequence &+= 1
        let slot = DurableMarker(salt: salt, lsn: lsn, sequence: sequence).encoded()
        try handle.writeAll(slot, at: Int64(Int(sequence % 2) * DurableMarker.slotSize))
        self.lsn = lsn
    }

    /// Makes later writes speak for the log generation of `salt` (the first segment of a new
    /// generation was just created, after the recovered tail of another). Writes nothing:
    /// the LSN recorded so far stays true of every generation.
    func adopt(salt: UInt32) { self.salt = salt }

    /// Makes the last ``write(_:)`` durable.
    func sync() throws { try handle.sync() }
}
