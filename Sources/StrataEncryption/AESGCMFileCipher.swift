internal import Crypto
internal import Foundation
internal import StrataStorage

/// One file's AES-GCM key on swift-crypto's public API: the file cipher on Apple platforms,
/// where swift-crypto is CryptoKit and has no BoringSSL to call, and elsewhere the reference
/// that tests hold `InPlaceAESGCMFileCipher` to, byte for byte.
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
