// Everywhere but on Apple platforms, swift-crypto compiles BoringSSL in (its `CCryptoBoringSSL`
// target); there, `AESGCMFileCipher` is the file cipher instead.
#if !canImport(Darwin)
internal import CStrataAEAD
internal import Crypto
internal import StrataStorage

/// One file's AES-256-GCM key, scheduled once when the file cipher is made, opening a chunk or
/// frame straight into the caller's buffer (in place when that buffer is the sealed bytes) and
/// sealing in place at the end of the output.
///
/// swift-crypto's public API (`AESGCMFileCipher`) copies each sealed payload into the
/// `Data` of a sealed box, schedules the key again, allocates the output and then has it
/// copied into the caller's buffer: most of the cost of decrypting a snapshot at its first
/// scan (`docs/PERFORMANCE.md`, "Issue 23: chunks and frames opened in place"). This cipher
/// calls BoringSSL's AEAD interface, which swift-crypto links in but does not export, through
/// the declarations of `CStrataAEAD` (`Sources/CStrataAEAD/include/strata_aead.h`): a rename
/// there fails the link, never silently. The bytes are those of `AESGCMFileCipher`, so a
/// file sealed by either opens with the other (`InPlaceAESGCMFileCipherTests`).
///
/// `@unchecked Sendable`: the context is made once, in `init`, and freed in `deinit`, when no
/// caller holds the cipher any more; in between it is only passed, as a const pointer, to
/// BoringSSL's `EVP_AEAD_CTX_seal` and `EVP_AEAD_CTX_open`, which its `aead.h` documents as safe
/// to call concurrently with each other on one context. `keyCheck` is an immutable array.
final class InPlaceAESGCMFileCipher: FileCipher, @unchecked Sendable {
    let keyCheck: [UInt8]
    /// The `EVP_AEAD_CTX` holding the file key's AES schedule and GHASH table.
    private let context: OpaquePointer

    /// Bytes of GCM nonce.
    private static let nonceLength = 12

    /// A cipher for the 256-bit file key `key`.
    init(key: SymmetricKey, keyCheck: [UInt8]) {
        precondition(key.bitCount == 256, "AES-256-GCM needs a 256-bit file key")
        let made = key.withUnsafeBytes { bytes in
            CCryptoBoringSSL_EVP_AEAD_CTX_new(CCryptoBoringSSL_EVP_aead_aes_256_gcm(),
                                              bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, 0)
        }
        // Fails only when out of memory: a 32-byte key is what AES-256-GCM takes.
        guard let made else { fatalError("BoringSSL could not make an AES-256-GCM context (out of memory)") }
        context = made
        self.keyCheck = keyCheck
    }

    deinit {
        CCryptoBoringSSL_EVP_AEAD_CTX_free(context)
    }

    /// Calls `body` with the 96-bit nonce: `value` little-endian, then four zero bytes (on
    /// the stack).
    private static func withNonce<Result>(_ value: UInt64, _ body: (UnsafePointer<UInt8>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(byteCount: nonceLength, alignment: 8) { bytes in
            bytes.storeBytes(of: value.littleEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: 0, toByteOffset: 8, as: UInt32.self)
            return body(UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)))
        }
    }

    /// `buffer`'s bytes, or `fallback` (never read: the length passed is 0) when `buffer` is
    /// empty and has no address.
    private static func start(_ buffer: UnsafeRawBufferPointer, or fallback: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? fallback
    }

    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) {
        // The plaintext is copied to the end of the output, with room for the tag, and
        // encrypted there in place. No reserveCapacity here: callers reserve for the whole
        // output, and appending keeps the array's geometric growth for those that do not.
        let start = output.count
        output.append(contentsOf: plaintext)
        output.append(contentsOf: repeatElement(0, count: EncryptionHeader.tagLength))
        var written = 0
        let sealed = output.withUnsafeMutableBytes { all in
            // At least the tag's 16 bytes, so never without an address.
            let tail = all.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self)
            return Self.withNonce(nonce) { nonce in
                CCryptoBoringSSL_EVP_AEAD_CTX_seal(context, tail, &written, all.count - start, nonce, Self.nonceLength,
                                                   tail, plaintext.count,
                                                   Self.start(associatedData, or: tail), associatedData.count)
            }
        }
        // Never fails: the output has room for the ciphertext and the tag, and the nonce is
        // the 12 bytes GCM takes.
        precondition(sealed == 1 && written == plaintext.count + EncryptionHeader.tagLength, "AES-GCM sealing failed")
    }

    func open(_ sealed: UnsafeRawBufferPointer, nonce: UInt64, associatedData: UnsafeRawBufferPointer,
              into plaintext: UnsafeMutableRawBufferPointer) -> Bool {
        guard sealed.count >= EncryptionHeader.tagLength, plaintext.count == sealed.count - EncryptionHeader.tagLength,
              let input = sealed.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        let output = plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafeMutablePointer(mutating: input)
        // BoringSSL decrypts in place only from the same address (as the FileCipher contract
        // allows); any other overlap would read bytes it has already overwritten.
        precondition(UnsafePointer(output) == input || plaintext.isEmpty
                     || UnsafeRawPointer(output) >= sealed.baseAddress! + sealed.count
                     || UnsafeRawPointer(output) + plaintext.count <= sealed.baseAddress!,
                     "FileCipher.open: the plaintext may overlap the sealed bytes only from their first byte")
        var written = 0
        let opened = Self.withNonce(nonce) { nonce in
            CCryptoBoringSSL_EVP_AEAD_CTX_open(context, output, &written, plaintext.count, nonce, Self.nonceLength,
                                               input, sealed.count, Self.start(associatedData, or: input), associatedData.count)
        }
        return opened == 1 && written == plaintext.count
    }
}
#endif
