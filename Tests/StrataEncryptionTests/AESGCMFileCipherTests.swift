import Crypto
import Testing
import StrataEncryption
import StrataStorage

/// The file cipher's buffer calls: sealing appends after what the output holds, opening works
/// in place, and anything but the sealed bytes, nonce and associated data is refused.
@Suite struct AESGCMFileCipherTests {
    static let cipher = AESGCMStoreCipher(key: SymmetricKey(data: [UInt8](repeating: 9, count: 32)))
        .fileCipher(salt: [UInt8](repeating: 1, count: EncryptionHeader.saltLength), kind: .snapshot)
    static let associated: [UInt8] = Array("header fields".utf8)

    /// `prefix`, then `plaintext` sealed with `nonce` and ``associated``.
    static func sealed(_ plaintext: [UInt8], nonce: UInt64, after prefix: [UInt8]) -> [UInt8] {
        var output = prefix
        plaintext.withUnsafeBytes { text in
            associated.withUnsafeBytes { cipher.seal(text, nonce: nonce, associatedData: $0, appendingTo: &output) }
        }
        return output
    }

    /// Opens `sealed[from...]` in place; the plaintext, or `nil` when it does not authenticate.
    static func openInPlace(_ sealed: [UInt8], from: Int, nonce: UInt64, associated: [UInt8] = associated) -> [UInt8]? {
        var bytes = sealed
        let opened = bytes.withUnsafeMutableBytes { all in
            associated.withUnsafeBytes {
                cipher.open(UnsafeRawBufferPointer(rebasing: all[from...]), nonce: nonce, associatedData: $0,
                            into: UnsafeMutableRawBufferPointer(rebasing: all[from..<(all.count - EncryptionHeader.tagLength)]))
            }
        }
        return opened ? Array(bytes[from..<(bytes.count - EncryptionHeader.tagLength)]) : nil
    }

    @Test(arguments: [0, 1, 15, 16, 17, 4096, 100_003])
    func sealAppendsAndOpenWorksInPlace(length: Int) {
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let prefix: [UInt8] = [0xAA, 0xBB, 0xCC]
        let sealed = Self.sealed(plaintext, nonce: 42, after: prefix)
        #expect(Array(sealed[..<3]) == prefix, "the output's bytes were not kept")
        #expect(sealed.count == prefix.count + length + EncryptionHeader.tagLength)
        if length >= 16 { #expect(Array(sealed[3..<(3 + length)]) != plaintext, "not encrypted") }
        #expect(Self.openInPlace(sealed, from: 3, nonce: 42) == plaintext)
    }

    @Test func anythingElseDoesNotAuthenticate() {
        let plaintext = Array("a chunk's columns".utf8)
        let sealed = Self.sealed(plaintext, nonce: 7, after: [])
        #expect(Self.openInPlace(sealed, from: 0, nonce: 8) == nil, "another nonce")
        #expect(Self.openInPlace(sealed, from: 0, nonce: 7, associated: Array("header fieldz".utf8)) == nil, "other associated data")
        for index in [0, plaintext.count - 1, plaintext.count, sealed.count - 1] {
            var damaged = sealed
            damaged[index] ^= 1
            #expect(Self.openInPlace(damaged, from: 0, nonce: 7) == nil, "byte \(index) flipped")
        }
        #expect(Self.openInPlace(Array(sealed.dropLast()), from: 0, nonce: 7) == nil, "tag cut short")
        #expect(Self.openInPlace(sealed, from: 0, nonce: 7) == plaintext)
    }
}
