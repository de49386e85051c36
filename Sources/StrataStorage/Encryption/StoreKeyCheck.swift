/// The check an open makes before it reads or changes anything: the store's files and the
/// options agree on encryption, and the key is the one the files were written with.
///
/// A key rotation (``StorageEngine/rotateKey(to:tables:metadata:fill:)``) interrupted after
/// its commit point leaves files under two keys: the rotation's snapshot (the newest) under
/// the new one, and files it covers under the old one. The newest snapshot decides; the
/// files under the other key are left-overs when every one of them is covered by it.
enum StoreKeyCheck {
    /// One segment or snapshot whose header decodes.
    private struct Entry {
        var name: String
        var path: String
        /// A snapshot's LSN, or a segment's first LSN.
        var lsn: UInt64
        var isSnapshot: Bool
        /// Why it does not open with the given cipher; `nil` when it does.
        var mismatch: StorageError?
    }

    /// Reads the header of every log segment and snapshot in `names` and compares each
    /// readable one with `cipher`. A header that does not decode is left to recovery (it
    /// reports damage as `corrupted`); only a header that decodes decides.
    ///
    /// - Returns: the files under another key that a key rotation left behind after its
    ///   commit point: every one is covered by the newest snapshot, which opens with
    ///   `cipher` and verifies. Recovery ignores them; a writable open removes them.
    /// - Throws: ``StorageError/Code/wrongKey`` when an encrypted file's key check does not
    ///   match `cipher`'s; ``StorageError/Code/encryptionKeyRequired`` when a file is
    ///   encrypted and `cipher` is `nil`; ``StorageError/Code/notEncrypted`` when a file is
    ///   plain and `cipher` is not `nil`.
    static func verify(names: [String], directory: String, fileSystem: any FileSystem,
                       cipher: (any StoreCipher)?) throws -> [String] {
        var entries: [Entry] = []
        for name in names.sorted() {
            let kind: EncryptedFileKind
            let path = "\(directory)/\(name)"
            let encryption: EncryptionHeader?
            let lsn: UInt64
            if let first = StoreFileNames.segmentLSN(name) {
                kind = .logSegment
                lsn = first
                guard let bytes = try readHeader(path, count: SegmentHeader.size + EncryptionHeader.size, fileSystem: fileSystem),
                      case .success(let header) = SegmentHeader.decode(bytes) else { continue }
                encryption = header.encryption
            } else if let snapshotLSN = StoreFileNames.snapshotLSN(name) {
                kind = .snapshot
                lsn = snapshotLSN
                guard let bytes = try readHeader(path, count: SnapshotLayout.headerSize + EncryptionHeader.size, fileSystem: fileSystem),
                      bytes.count >= SnapshotLayout.headerSize,
                      Array(bytes[0..<8]) == SnapshotLayout.headerMagic,
                      CRC32C.checksum(Array(bytes[0..<36])) == UInt32(bytes[36]) | UInt32(bytes[37]) << 8 | UInt32(bytes[38]) << 16 | UInt32(bytes[39]) << 24
                else { continue }
                if bytes[12] & UInt8(SnapshotLayout.encryptedFileFlag) != 0 {
                    guard let decoded = EncryptionHeader.decode(bytes[SnapshotLayout.headerSize...]) else { continue }
                    encryption = decoded
                } else {
                    encryption = nil
                }
            } else {
                continue
            }
            var entry = Entry(name: name, path: path, lsn: lsn, isSnapshot: kind == .snapshot)
            switch (encryption, cipher) {
            case (nil, nil): break
            case (nil, _?): entry.mismatch = StorageError.notEncrypted(file: path)
            case (_?, nil): entry.mismatch = StorageError.keyRequired(file: path)
            case (let encryption?, let cipher?):
                do { _ = try encryption.fileCipher(cipher, kind: kind, path: path) }
                catch let error as StorageError { entry.mismatch = error }
            }
            entries.append(entry)
        }
        let mismatched = entries.filter { $0.mismatch != nil }
        guard let first = mismatched.first else { return [] }
        guard let newest = entries.filter(\.isSnapshot).max(by: { $0.lsn < $1.lsn }) else { throw first.mismatch! }
        if newest.mismatch == nil {
            // The given key is the one a rotation switched to: what is under the other key
            // must be covered by the rotation's snapshot, and that snapshot must be whole.
            if try mismatched.allSatisfy({ try isCovered($0, by: newest.lsn, among: entries, fileSystem: fileSystem) }),
               verifies(newest, directory: directory, fileSystem: fileSystem, cipher: cipher) {
                return mismatched.map(\.name)
            }
            throw first.mismatch!
        }
        let matching = entries.filter { $0.mismatch == nil }
        if !matching.isEmpty,
           try matching.allSatisfy({ try isCovered($0, by: newest.lsn, among: entries, fileSystem: fileSystem) }) {
            // The given key is the one a rotation switched away from, after its commit point.
            throw StorageError.rotatedAway(newest.mismatch!, snapshot: newest.path)
        }
        throw first.mismatch!
    }

    /// Whether everything in `entry` is in the snapshot at `lsn`: an older snapshot, or a
    /// segment whose frames all have LSNs up to `lsn` (told by the next segment's name, or
    /// by reading its frame headers and checksums, which need no key).
    private static func isCovered(_ entry: Entry, by lsn: UInt64, among entries: [Entry],
                                  fileSystem: any FileSystem) throws -> Bool {
        if entry.isSnapshot { return entry.lsn < lsn }
        guard entry.lsn <= lsn + 1 else { return false }
        if entries.contains(where: { !$0.isSnapshot && $0.lsn > entry.lsn && $0.lsn <= lsn + 1 }) { return true }
        let handle: any FileHandle
        do { handle = try fileSystem.open(entry.path, mode: .readOnly) } catch { return false }
        defer { try? handle.close() }
        let bytes = try WriteAheadLog.wrap("Reading log segment \(entry.name)") { try handle.read(count: Int(try handle.size()), at: 0) }
        guard let last = SegmentScanner.lastFrameLSNWithoutKey(bytes) else { return false }
        return last <= lsn
    }

    /// Whether the snapshot of `entry` reads back whole under `cipher`.
    private static func verifies(_ entry: Entry, directory: String, fileSystem: any FileSystem,
                                 cipher: (any StoreCipher)?) -> Bool {
        guard let reader = try? SnapshotReader(fileSystem: fileSystem, directory: directory, name: entry.name, cipher: cipher),
              reader.lsn == entry.lsn, (try? reader.verifyChecksums()) != nil else { return false }
        return true
    }

    /// Up to `count` bytes from the start of `path`; `nil` when the file vanished meanwhile
    /// (a writer's checkpoint, seen by a read-only open).
    private static func readHeader(_ path: String, count: Int, fileSystem: any FileSystem) throws -> [UInt8]? {
        let handle: any FileHandle
        do { handle = try fileSystem.open(path, mode: .readOnly) } catch { return nil }
        defer { try? handle.close() }
        return try WriteAheadLog.wrap("Reading the header of \(path)") { try handle.read(count: count, at: 0) }
    }
}
