import Crypto
import Dispatch
import Foundation
import Testing
@testable import StrataEncryption
@testable import StrataStorage

/// The file cipher that stores use seals and opens exactly the bytes of swift-crypto's public
/// `AES.GCM` with the key derivation and nonce rule of docs/FORMAT.md §14, both ways: a file
/// sealed before chunks and frames were opened in place (on `AES.GCM`) opens with it, and what
/// it seals opens with `AES.GCM`. Off Apple platforms it is the in-place cipher on BoringSSL's
/// AEAD calls, and it may be used from several threads at once.
@Suite struct InPlaceAESGCMFileCipherTests {
    static let masterKey = SymmetricKey(data: (0..<32).map { UInt8(255 - $0) })
    static let salt: [UInt8] = (0..<EncryptionHeader.saltLength).map { UInt8($0 &* 17) }
    static let lengths = [0, 1, 15, 16, 17, 4096, 100_003]
    /// A first frame's LSN, a large LSN, the snapshot footer's nonce.
    static let nonces: [UInt64] = [0, 1, 0x0123_4567_89AB_CDEF, UInt64.max]

    /// The file key as FORMAT.md §14.1 defines it, derived here on swift-crypto's public API.
    static func fileKey(_ kind: EncryptedFileKind) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, salt: salt, info: Array(kind.rawValue.utf8), outputByteCount: 32)
    }

    /// The 96-bit nonce of FORMAT.md §14.2: `value` little-endian, then four zero bytes.
    static func gcmNonce(_ value: UInt64) -> AES.GCM.Nonce {
        try! AES.GCM.Nonce(data: withUnsafeBytes(of: value.littleEndian, Array.init) + [0, 0, 0, 0])
    }

    static func plaintext(_ length: Int, _ seed: UInt8) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) }
    }

    static let associated: [UInt8] = Array("the header's first 44 bytes".utf8)

    @Test(arguments: [EncryptedFileKind.snapshot, .logSegment])
    func sealsTheBytesOfAESGCMAndOpensWhatItSealed(kind: EncryptedFileKind) throws {
        let cipher = AESGCMStoreCipher(key: Self.masterKey).fileCipher(salt: Self.salt, kind: kind)
        let key = Self.fileKey(kind)
        for length in Self.lengths {
            for nonce in Self.nonces {
                let plaintext = Self.plaintext(length, UInt8(truncatingIfNeeded: nonce))
                // swift-crypto's public API, as every store before this cipher was sealed.
                let box = try AES.GCM.seal(plaintext, using: key, nonce: Self.gcmNonce(nonce), authenticating: Self.associated)
                let reference = Array(box.ciphertext) + Array(box.tag)

                var sealed: [UInt8] = [0xEE]
                plaintext.withUnsafeBytes { text in
                    Self.associated.withUnsafeBytes { cipher.seal(text, nonce: nonce, associatedData: $0, appendingTo: &sealed) }
                }
                #expect(sealed.first == 0xEE, "the output's bytes were not kept")
                #expect(Array(sealed.dropFirst()) == reference, "length \(length), nonce \(nonce): not the bytes of AES.GCM")

                // What the cipher sealed opens with the public API …
                let box2 = try AES.GCM.SealedBox(nonce: Self.gcmNonce(nonce), ciphertext: sealed[1..<(1 + length)],
                                                 tag: sealed[(1 + length)...])
                #expect(Array(try AES.GCM.open(box2, using: key, authenticating: Self.associated)) == plaintext)
                // … and what the public API sealed opens with the cipher, into a buffer of its
                // own and in place.
                let opened = reference.withUnsafeBytes { cipher.open($0, nonce: nonce, associatedData: Self.associated) }
                #expect(opened == plaintext, "length \(length), nonce \(nonce): AES.GCM's bytes do not open")
                var inPlace = reference
                let authenticated = inPlace.withUnsafeMutableBytes { all in
                    Self.associated.withUnsafeBytes {
                        cipher.open(UnsafeRawBufferPointer(all), nonce: nonce, associatedData: $0,
                                    into: UnsafeMutableRawBufferPointer(rebasing: all[..<length]))
                    }
                }
                #expect(authenticated && Array(inPlace[..<length]) == plaintext, "length \(length), nonce \(nonce): not opened in place")
            }
        }
    }

    @Test func aFileSealedOnThePublicAPIOpensWithTheInPlaceCipherAndBack() {
        let key = Self.fileKey(.logSegment)
        let onAPI = AESGCMFileCipher(key: key, keyCheck: [])
        let stores = AESGCMStoreCipher(key: Self.masterKey).fileCipher(salt: Self.salt, kind: .logSegment)
        #if !canImport(Darwin)
        #expect(stores is InPlaceAESGCMFileCipher, "stores still seal and open on swift-crypto's public API")
        #endif
        for (sealer, opener) in [(onAPI as any FileCipher, stores), (stores, onAPI as any FileCipher)] {
            for length in Self.lengths {
                let plaintext = Self.plaintext(length, 3)
                let sealed = plaintext.withUnsafeBytes { sealer.seal($0, nonce: 77, associatedData: Self.associated) }
                #expect(sealed.withUnsafeBytes { opener.open($0, nonce: 77, associatedData: Self.associated) } == plaintext)
                #expect(sealed.withUnsafeBytes { opener.open($0, nonce: 78, associatedData: Self.associated) } == nil)
            }
        }
    }

    @Test func aCipherOfAnotherKeyOrSaltOpensNothing() {
        let plaintext = Self.plaintext(4096, 9)
        let cipher = AESGCMStoreCipher(key: Self.masterKey).fileCipher(salt: Self.salt, kind: .snapshot)
        let sealed = plaintext.withUnsafeBytes { cipher.seal($0, nonce: 5, associatedData: Self.associated) }
        let otherKey = AESGCMStoreCipher(key: SymmetricKey(size: .bits256)).fileCipher(salt: Self.salt, kind: .snapshot)
        let otherSalt = AESGCMStoreCipher(key: Self.masterKey).fileCipher(salt: Array(Self.salt.reversed()), kind: .snapshot)
        let otherKind = AESGCMStoreCipher(key: Self.masterKey).fileCipher(salt: Self.salt, kind: .logSegment)
        for other in [otherKey, otherSalt, otherKind] {
            #expect(sealed.withUnsafeBytes { other.open($0, nonce: 5, associatedData: Self.associated) } == nil)
        }
        #expect(sealed.withUnsafeBytes { cipher.open($0, nonce: 5, associatedData: Self.associated) } == plaintext)
    }

    /// One file cipher (one BoringSSL context) sealing and opening on every thread at once,
    /// as snapshot chunks are decrypted on every core and decoded by concurrent scans.
    @Test func oneCipherServesManyThreadsAtOnce() {
        let cipher = AESGCMStoreCipher(key: Self.masterKey).fileCipher(salt: Self.salt, kind: .snapshot)
        let key = Self.fileKey(.snapshot)
        let workers = 8, rounds = 200
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var wrong = 0
            for round in 0..<rounds {
                let nonce = UInt64(worker * rounds + round)
                let plaintext = Self.plaintext(1000 + round, UInt8(truncatingIfNeeded: nonce))
                let sealed = plaintext.withUnsafeBytes { cipher.seal($0, nonce: nonce, associatedData: Self.associated) }
                let reference = try? AES.GCM.seal(plaintext, using: key, nonce: Self.gcmNonce(nonce), authenticating: Self.associated)
                if reference.map({ Array($0.ciphertext) + Array($0.tag) }) != sealed { wrong += 1 }
                if sealed.withUnsafeBytes({ cipher.open($0, nonce: nonce, associatedData: Self.associated) }) != plaintext { wrong += 1 }
            }
            mismatches.withLock { $0 += wrong }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }
}
