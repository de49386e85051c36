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
///
/// swift-crypto's API takes and returns `Data`, so each call copies once on the way in (the
/// sealed box it builds) and once on the way out (into the caller's buffer); nothing else is
/// allocated per call but the box and BoringSSL's output.
struct AESGCMFileCipher: FileCipher {
    let key: SymmetricKey
    let keyCheck: [UInt8]

    /// Bytes of GCM nonce.
    private static let nonceLength = 12

    /// The 96-bit nonce: `value` little-endian, then four zero bytes (built on the stack).
    private static func nonce(_ value: UInt64) -> AES.GCM.Nonce {
        withUnsafeTemporaryAllocation(byteCount: nonceLength, alignment: 8) { bytes in
            bytes.storeBytes(of: value.littleEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: 0, toByteOffset: 8, as: UInt32.self)
            // Never fails: 12 bytes is the GCM nonce size.
            return try! AES.GCM.Nonce(data: UnsafeRawBufferPointer(bytes))
        }
    }

    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) {
        // Never fails for a 256-bit key and a 12-byte nonce.
        let box = try! AES.GCM.seal(plaintext, using: key, nonce: Self.nonce(nonce), authenticating: associatedData)
        // `combined` is the nonce, the ciphertext and the tag in one buffer (never nil with a
        // 12-byte nonce).
        box.combined!.withUnsafeBytes { combined in
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: combined[Self.nonceLength...]))
        }
    }

    func open(_ sealed: UnsafeRawBufferPointer, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
              into plaintext: UnsafeMutableRawBufferPointer) -> Bool {
        guard sealed.count >= EncryptionHeader.tagLength,
              plaintext.count == sealed.count - EncryptionHeader.tagLength else { return false }
        let split = sealed.count - EncryptionHeader.tagLength
        guard let box = try? AES.GCM.SealedBox(nonce: Self.nonce(nonce),
                                               ciphertext: UnsafeRawBufferPointer(rebasing: sealed[..<split]),
                                               tag: UnsafeRawBufferPointer(rebasing: sealed[split...])),
              let opened = try? AES.GCM.open(box, using: key, authenticating: associatedData) else { return false }
        // Copied only now, after `sealed` was read whole: `plaintext` may overlap it.
        opened.withUnsafeBytes { plaintext.copyMemory(from: $0) }
        return true
    }
}
