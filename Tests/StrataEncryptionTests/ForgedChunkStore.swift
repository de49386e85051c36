import Crypto
import Foundation
@testable import Strata
import StrataEncryption
import Testing
import StrataTestSupport
@testable import StrataStorage

/// An encrypted store on disk, one of whose snapshot chunks was rewritten together with its
/// checksum by someone without the key: what a bit flip cannot do, and what only the chunk's
/// GCM tag tells apart (docs/FORMAT.md §14.3).
///
/// The rewrite is the attack AES-GCM's tag exists for: GCM encrypts in counter mode, so
/// flipping a ciphertext bit flips the same plaintext bit. The forger flips one bit of a
/// character of a stored `token` (random hex, so LZ4 keeps it as a literal) and recomputes
/// the chunk's CRC-32C: a reader that did not check the tag would decode the chunk fine and
/// return that row with a changed token. (The test knows the key only to find the byte.)
struct ForgedChunkStore {
    /// `token` is unique: a save or batch insert of a note checks the tokens of every chunk.
    static let schema = try! Schema {
        Entity("Note", uniquenessConstraints: [["token"]]) {
            Attribute("title", .string)
            Attribute("rank", .int64, default: 0)
            Attribute("token", .string)
        }
        Entity("Tag") {
            Attribute("name", .string)
        }
    }

    /// Rows of `Note`: three or four chunks in the snapshot.
    static let rows = 3_000

    let directory: TemporaryDirectory
    let key: SymmetricKey
    /// The snapshot's path.
    let snapshot: String
    /// The forged chunk's number and byte offset in the snapshot.
    let chunk: Int
    let offset: Int64
    /// The primary key of the row whose token was changed, and its token as saved.
    let forgedKey: Int64
    let token: String
    /// The primary keys of the forged chunk's rows.
    let keys: ClosedRange<Int64>

    var path: String { directory.path }

    /// The store's options; `onEveryCore` makes scans and batch requests spread even these
    /// few chunks over the cores (`Options.scansInParallel`), so that the forged chunk is
    /// first read on another thread than the caller's.
    func options(prefetching: Bool = false, onEveryCore: Bool = false) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.encryptionKey = key
        options.prefetchesSnapshot = prefetching
        if onEveryCore { options.parallelScanMinimumChunks = 1 }
        return options
    }

    func open(prefetching: Bool = false, onEveryCore: Bool = false) throws -> PersistentStore {
        try PersistentStore.open(at: path, schema: Self.schema, options: options(prefetching: prefetching, onEveryCore: onEveryCore))
    }

    static func token(_ row: Int) -> String {
        var generator = SplitMix64(seed: UInt64(row) &* 0x9E37_79B9)
        return "tok-" + (0..<4).map { _ in String(generator.next() & 0xFFFF, radix: 16) }.joined(separator: "-")
    }

    /// Writes the notes and a few tags, checkpoints (so that they are all in the snapshot and
    /// the log replays nothing at open), closes, then forges the last chunk of `Note`.
    static func make() throws -> ForgedChunkStore {
        let directory = try TemporaryDirectory(prefix: "strata-forged")
        let key = SymmetricKey(size: .bits256)
        var options = PersistentStore.Options()
        options.encryptionKey = key
        let store = try PersistentStore.open(at: directory.path, schema: schema, options: options)
        let notes: [[String: AttributeValue]] = (0..<rows).map {
            ["title": .string("note \($0)"), "rank": .int(Int64($0)), "token": .string(token($0))]
        }
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: notes))
        _ = try store.execute(BatchInsertRequest(entityName: "Tag", objects: (0..<10).map { ["name": .string("tag \($0)")] }))
        try store.checkpoint()
        try store.close()

        let name = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { StoreFileNames.snapshotLSN($0) != nil }.sorted().last!
        let path = directory.appending(name)
        let cipher = AESGCMStoreCipher(key: key)
        let reader = try SnapshotReader(fileSystem: PosixFileSystem(), directory: directory.path, name: name, cipher: cipher)
        let noteTable = try #require(reader.tables.firstIndex { $0.name == "Note" })
        let index = try #require(reader.chunks.indices.last { reader.chunks[$0].table == noteTable })
        let info = reader.chunks[index]
        guard case .int(let low, let high)? = info.statistics[0].range else { throw ForgeryFailed("no key range") }

        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let start = Int(info.offset), payload = start + SnapshotLayout.chunkHeaderSize, end = start + info.length
        // Find the token of the chunk's last row in the chunk's plaintext (the LZ4 block).
        let salt = try #require(EncryptionHeader.decode(bytes[SnapshotLayout.headerSize...])).salt
        let file = cipher.fileCipher(salt: salt, kind: .snapshot)
        let plaintext = try #require(bytes.withUnsafeBytes {
            file.open(UnsafeRawBufferPointer(rebasing: $0[payload..<end]), nonce: UInt64(index), associatedData: Array(bytes[start..<start + 24]))
        })
        let row = Int(high) - 1   // keys start at 1
        // LZ4 may copy the token's start from earlier rows; its random end is a literal, found
        // as the longest end of the token that occurs exactly once.
        let saved = Array(token(row).utf8)
        var tokenEnd: Int?
        for length in stride(from: saved.count, through: 6, by: -1) {
            let needle = Array(saved.suffix(length))
            let places = (0...(plaintext.count - needle.count)).filter { Array(plaintext[$0..<$0 + needle.count]) == needle }
            if places.count == 1 { tokenEnd = places[0] + needle.count; break }
        }
        let last = try #require(tokenEnd, "the token's end is not a literal of the chunk") - 1
        // Counter mode: this flips bit 0 of the token's last character in the plaintext.
        bytes[payload + last] ^= 0x01
        let crc = bytes.withUnsafeBytes { all in
            CRC32C.finalize(CRC32C.update(CRC32C.update(CRC32C.initial, UnsafeRawBufferPointer(rebasing: all[payload..<end])),
                                          UnsafeRawBufferPointer(rebasing: all[start..<start + 24])))
        }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((start + 24)..<(start + 28), with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return ForgedChunkStore(directory: directory, key: key, snapshot: path, chunk: index, offset: info.offset,
                                forgedKey: high, token: token(row), keys: low...high)
    }

    /// The bytes of every log segment and snapshot, by name: what no refused operation may
    /// change.
    func logAndSnapshots() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path)
        where StoreFileNames.segmentLSN(name) != nil || name.hasPrefix("snapshot-") {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory.appending(name)))
        }
        return files
    }

    /// Whether `error` is the damage of the forged chunk: `.corrupted`, its cause naming the
    /// snapshot and the chunk's offset, and a message that says what to do.
    func isTheDamage(_ error: any Error) -> Bool {
        guard let error = error as? StrataError, error.code == .corrupted,
              let cause = error.cause as? StorageError, cause.code == .corrupted else { return false }
        return cause.file == snapshot && cause.offset == offset
            && error.message.contains("chunk #\(chunk) does not authenticate")
            && error.message.contains(URL(fileURLWithPath: snapshot).lastPathComponent)
            && error.message.contains("restore it from a backup")
    }
}

struct ForgeryFailed: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
