/// The check an open makes before it reads or changes anything: the store's files and the
/// options agree on encryption, and the key is the one the files were written with.
enum StoreKeyCheck {
    /// Reads the header of every log segment and snapshot in `names` and compares each
    /// readable one with `cipher`. A header that does not decode is left to recovery (it
    /// reports damage as `corrupted`); only a header that decodes decides.
    ///
    /// - Throws: ``StorageError/Code/wrongKey`` when an encrypted file's key check does not
    ///   match `cipher`'s; ``StorageError/Code/encryptionKeyRequired`` when a file is
    ///   encrypted and `cipher` is `nil`; ``StorageError/Code/notEncrypted`` when a file is
    ///   plain and `cipher` is not `nil`.
    static func verify(names: [String], directory: String, fileSystem: any FileSystem,
                       cipher: (any StoreCipher)?) throws {
        for name in names.sorted() {
            let kind: EncryptedFileKind
            let path = "\(directory)/\(name)"
            let encryption: EncryptionHeader?
            if StoreFileNames.segmentLSN(name) != nil {
                kind = .logSegment
                guard let bytes = try readHeader(path, count: SegmentHeader.size + EncryptionHeader.size, fileSystem: fileSystem),
                      case .success(let header) = SegmentHeader.decode(bytes) else { continue }
                encryption = header.encryption
            } else if StoreFileNames.snapshotLSN(name) != nil {
                kind = .snapshot
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
            switch (encryption, cipher) {
            case (nil, nil): continue
            case (nil, _?): throw StorageError.notEncrypted(file: path)
            case (_?, nil): throw StorageError.keyRequired(file: path)
            case (let encryption?, let cipher?): _ = try encryption.fileCipher(cipher, kind: kind, path: path)
            }
        }
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
