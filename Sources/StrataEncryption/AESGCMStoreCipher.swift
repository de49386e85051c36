public import Crypto
internal import Foundation
public import StrataStorage

/// AES-256-GCM for a store's files, behind StrataStorage's ``StoreCipher`` seam.
///
/// Each file's key is `HKDF-SHA256(master key, salt: the file's 128-bit random salt,
/// info: the file kind)`; its key check is 12 more bytes of HKDF with the info
/// `"<kind> key check"`. The 96-bit GCM nonce is the frame's LSN or the chunk's number
/// (little-endian, then four zero bytes), unique within one file key. Layout and rules:
/// `docs/FORMAT.md`, "Encryption".
///
/// Most code sets ``Strata/PersistentStore/Options/encryptionKey`` instead of using this
/// type directly.
public struct AESGCMStoreCipher: StoreCipher {
    /// The master key, never stored.
    public let key: SymmetricKey

    /// A cipher for `key`, which must be 256 bits long (``checkUsable()`` says so at open).
    public init(key: SymmetricKey) {
        self.key = key
    }

    /// Refuses a key that is not 256 bits long.
    ///
    /// - Throws: ``StorageError/Code/invalidArgument``.
    public func checkUsable() throws {
        guard key.bitCount == 256 else {
            throw StorageError(.invalidArgument, "The encryption key is \(key.bitCount) bits long; Strata needs a 256-bit (32-byte) key, such as SymmetricKey(size: .bits256).")
        }
    }

    /// The AES-GCM cipher of the file with `salt` and `kind`.
    public func fileCipher(salt: [UInt8], kind: EncryptedFileKind) -> any FileCipher {
        let fileKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt,
                                             info: Array(kind.rawValue.utf8), outputByteCount: 32)
        let check = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt,
                                           info: Array("\(kind.rawValue) key check".utf8),
                                           outputByteCount: EncryptionHeader.keyCheckLength)
        return AESGCMFileCipher(key: fileKey, keyCheck: check.withUnsafeBytes { Array($0) })
    }
}

/// One file's AES-GCM key.
struct AESGCMFileCipher: FileCipher {
    let key: SymmetricKey
    let keyCheck: [UInt8]

    private static func nonce(_ value: UInt64) -> AES.GCM.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        // Never fails: 12 bytes is the GCM nonce size.
        return try! AES.GCM.Nonce(data: bytes)
    }

    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: UInt64, associatedData: [UInt8]) -> [UInt8] {
        // Never fails for a 256-bit key and a 12-byte nonce.
        let box = try! AES.GCM.seal(plaintext, using: key, nonce: Self.nonce(nonce), authenticating: associatedData)
        var out = [UInt8]()
        out.reserveCapacity(plaintext.count + EncryptionHeader.tagLength)
        out.append(contentsOf: box.ciphertext)
        out.append(contentsOf: box.tag)
        return out
    }

    func open(_ sealed: UnsafeRawBufferPointer, nonce: UInt64, associatedData: [UInt8]) -> [UInt8]? {
        guard sealed.count >= EncryptionHeader.tagLength else { return nil }
        let split = sealed.count - EncryptionHeader.tagLength
        guard let box = try? AES.GCM.SealedBox(nonce: Self.nonce(nonce),
                                               ciphertext: UnsafeRawBufferPointer(rebasing: sealed[..<split]),
                                               tag: UnsafeRawBufferPointer(rebasing: sealed[split...])),
              let plain = try? AES.GCM.open(box, using: key, authenticating: associatedData) else { return nil }
        return Array(plain)
    }
}
