/// The seam through which a store encrypts its files (`docs/FORMAT.md`, "Encryption").
///
/// The storage layer holds no cipher of its own: `StrataEncryption` provides AES-GCM
/// (`PersistentStore.Options.encryptionKey`), and tests may provide another. A store cipher
/// holds the master key; for every file it derives a ``FileCipher`` from that file's random
/// salt, so that one key never sees the same nonce twice (the nonce is the frame's LSN or the
/// chunk's number, unique within one file key).
public protocol StoreCipher: Sendable {
    /// The cipher of one file: its key derived from the master key, `salt` (the
    /// ``EncryptionHeader/saltLength`` random bytes in the file's header) and `kind`.
    func fileCipher(salt: [UInt8], kind: EncryptedFileKind) -> any FileCipher

    /// Checks the cipher's configuration (such as its key's length) before a store opens.
    ///
    /// - Throws: a ``StorageError`` saying what to change.
    func checkUsable() throws
}

extension StoreCipher {
    /// Accepts any configuration.
    public func checkUsable() throws {}
}

/// The kinds of file a store encrypts; part of each file key's derivation, so a log key is
/// never a snapshot key.
public enum EncryptedFileKind: String, Sendable, Hashable {
    /// A log segment, `wal-<LSN>.log`.
    case logSegment = "strata log segment"
    /// A snapshot, `snapshot-<LSN>.snap`.
    case snapshot = "strata snapshot"
}

/// Seals and opens the payloads of one file with an authenticated cipher.
///
/// Both calls take and give buffers, not arrays, so that a frame is sealed straight into the
/// log's batch and a snapshot chunk opened in place in the image read at open: the cipher's
/// own copies are the only ones (`docs/PERFORMANCE.md`, "Encryption at rest").
public protocol FileCipher: Sendable {
    /// ``EncryptionHeader/keyCheckLength`` bytes that depend on the master key and the
    /// file's salt only; stored in the file's header so that a wrong key is told apart from
    /// damage (`wrongKey`, not `corrupted`) before anything is decrypted.
    var keyCheck: [UInt8] { get }

    /// Encrypts `plaintext` and appends the ciphertext, then a
    /// ``EncryptionHeader/tagLength``-byte authentication tag, to `output`.
    ///
    /// - Parameters:
    ///   - nonce: unique within this file key (an LSN, a chunk number).
    ///   - associatedData: bytes authenticated but not encrypted (the header fields).
    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8])

    /// Decrypts what ``seal(_:nonce:associatedData:appendingTo:)`` appended into `plaintext`,
    /// which holds exactly `sealed.count` − ``EncryptionHeader/tagLength`` bytes and may start
    /// where `sealed` starts (decrypting in place). Returns `false`, leaving `plaintext`
    /// undefined, when the bytes, the nonce or the associated data are not those it was
    /// sealed with.
    func open(_ sealed: UnsafeRawBufferPointer, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
              into plaintext: UnsafeMutableRawBufferPointer) -> Bool
}

extension FileCipher {
    /// ``seal(_:nonce:associatedData:appendingTo:)`` into a new array.
    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: UInt64, associatedData: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(plaintext.count + EncryptionHeader.tagLength)
        associatedData.withUnsafeBytes { seal(plaintext, nonce: nonce, associatedData: $0, appendingTo: &output) }
        return output
    }

    /// ``open(_:nonce:associatedData:into:)`` into a new array; `nil` when it does not
    /// authenticate.
    func open(_ sealed: UnsafeRawBufferPointer, nonce: UInt64, associatedData: [UInt8]) -> [UInt8]? {
        guard sealed.count >= EncryptionHeader.tagLength else { return nil }
        var opened = true
        let plaintext = [UInt8](unsafeUninitializedCapacity: sealed.count - EncryptionHeader.tagLength) { buffer, count in
            opened = associatedData.withUnsafeBytes {
                open(sealed, nonce: nonce, associatedData: $0, into: UnsafeMutableRawBufferPointer(buffer))
            }
            count = buffer.count
        }
        return opened ? plaintext : nil
    }
}

/// The 32 bytes an encrypted log segment or snapshot carries after its plain header: the
/// file's salt, its key check and their CRC-32C.
public struct EncryptionHeader: Sendable, Hashable {
    /// Bytes of random salt per file.
    public static let saltLength = 16
    /// Bytes of key check.
    public static let keyCheckLength = 12
    /// Bytes of authentication tag after each sealed payload.
    public static let tagLength = 16
    /// Encoded size.
    public static let size = 32

    /// The file's random salt.
    public var salt: [UInt8]
    /// The file cipher's ``FileCipher/keyCheck``.
    public var keyCheck: [UInt8]

    /// A fresh random salt.
    public static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The header of a new file encrypted by `cipher`, with a fresh salt, and its file cipher.
    static func new(_ cipher: any StoreCipher, kind: EncryptedFileKind) -> (EncryptionHeader, any FileCipher) {
        let salt = randomSalt()
        let file = cipher.fileCipher(salt: salt, kind: kind)
        return (EncryptionHeader(salt: salt, keyCheck: file.keyCheck), file)
    }

    /// The 32 bytes on disk.
    func encoded() -> [UInt8] {
        var bytes = salt + keyCheck
        bytes += withUnsafeBytes(of: CRC32C.checksum(bytes).littleEndian, Array.init)
        return bytes
    }

    /// Decodes the 32 bytes at the start of `bytes`; `nil` when too short or the checksum fails.
    static func decode(_ bytes: ArraySlice<UInt8>) -> EncryptionHeader? {
        guard bytes.count >= size else { return nil }
        let base = bytes.startIndex
        let body = Array(bytes[base..<base + 28])
        let stored = bytes[base + 28..<base + 32].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        guard CRC32C.checksum(body) == stored else { return nil }
        return EncryptionHeader(salt: Array(body[0..<saltLength]), keyCheck: Array(body[saltLength..<28]))
    }

    /// The file cipher for this header, after checking that `cipher` holds the key the file
    /// was written with.
    ///
    /// - Throws: ``StorageError/Code/wrongKey``.
    func fileCipher(_ cipher: any StoreCipher, kind: EncryptedFileKind, path: String) throws -> any FileCipher {
        let file = cipher.fileCipher(salt: salt, kind: kind)
        guard file.keyCheck == keyCheck else { throw StorageError.wrongKey(file: path) }
        return file
    }
}

extension StorageError {
    /// What to try when a key rotation may have been interrupted: the store is then under
    /// the old key or the new one.
    static let rotationHint = "If a key rotation (rotateKey(to:), or strata rotate-key, encrypt or decrypt) was interrupted, the store is under either the old key or the new one: try the other."

    /// The `wrongKey` error for the file at `path`.
    static func wrongKey(file path: String) -> StorageError {
        StorageError(.wrongKey, "The encryption key does not open \(path): the store was encrypted with another key. Open it with the key it was written with. \(rotationHint) Nothing was changed.", file: path)
    }

    /// The `encryptionKeyRequired` error for the encrypted file at `path`.
    static func keyRequired(file path: String) -> StorageError {
        StorageError(.encryptionKeyRequired, "\(path) is encrypted; open the store with its encryption key (PersistentStore.Options.encryptionKey, from the StrataEncryption product; strata --key-file). \(rotationHint) Nothing was changed.", file: path)
    }

    /// The `notEncrypted` error for the plain file at `path`.
    static func notEncrypted(file path: String) -> StorageError {
        StorageError(.notEncrypted, "\(path) is not encrypted, but an encryption key was given. Open the store without a key, or point at the encrypted store the key belongs to. \(rotationHint) Nothing was changed.", file: path)
    }

    /// `mismatch` (the error for the newest snapshot, `snapshot`) when the key given is the
    /// one a key rotation switched away from: the rotation was interrupted after its commit
    /// point, so the store is under the new key now.
    static func rotatedAway(_ mismatch: StorageError, snapshot: String) -> StorageError {
        var error = mismatch
        error.message = "A key rotation (rotateKey(to:), or strata rotate-key, encrypt or decrypt) from the key given was interrupted after the store had switched to its new key: \(snapshot) is under the new key" + (mismatch.code == .notEncrypted ? " (the store is now plain)" : "") + ", and the files still under the old key are left-overs it covers. Open the store with the new key" + (mismatch.code == .notEncrypted ? " (no key)" : "") + "; that open removes them. Nothing was changed."
        return error
    }
}
