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

    /// The AES-GCM cipher of the file with `salt` and `kind`: one that opens and seals in
    /// place on a key scheduled once (`InPlaceAESGCMFileCipher`), or on Apple platforms one on
    /// swift-crypto's public API (`AESGCMFileCipher`); both give the same bytes.
    public func fileCipher(salt: [UInt8], kind: EncryptedFileKind) -> any FileCipher {
        let fileKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt,
                                             info: Array(kind.rawValue.utf8), outputByteCount: 32)
        let check = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt,
                                           info: Array("\(kind.rawValue) key check".utf8),
                                           outputByteCount: EncryptionHeader.keyCheckLength)
        let keyCheck = check.withUnsafeBytes { Array($0) }
        #if canImport(Darwin)
        // swift-crypto is CryptoKit there, with no BoringSSL to call.
        return AESGCMFileCipher(key: fileKey, keyCheck: keyCheck)
        #else
        return InPlaceAESGCMFileCipher(key: fileKey, keyCheck: keyCheck)
        #endif
    }
}
