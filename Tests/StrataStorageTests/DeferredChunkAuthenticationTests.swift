import Testing
import StrataTestSupport
@testable import StrataStorage

/// A store's open verifies an encrypted snapshot's checksums only and leaves each chunk's GCM
/// tag to its first decode (`verifyChecksums(deferringAuthentication: true)`, docs/FORMAT.md
/// §14.3): every accidental change is still refused before any chunk is decoded, and a chunk
/// rewritten together with its checksum is refused by its first decode, naming it, while the
/// others read back unchanged.
@Suite struct DeferredChunkAuthenticationTests {
    static let cipher = SweepCipher.cipher(true)

    @Test func chunksAreAuthenticatedAndReadBackAtTheirFirstDecode() throws {
        let fs = SimulatedFileSystem()
        let (name, _) = try EncryptedSnapshotOpenTests.write(fs)
        let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: Self.cipher)
        try reader.verifyChecksums(deferringAuthentication: true)
        for index in [0, 50, 95] {
            #expect(try reader.readChunk(index) == EncryptedSnapshotOpenTests.chunks[index], "chunk \(index)")
        }
        let source = try #require(reader.takeVerifiedChunks())
        #expect(source.authenticatesAtDecode)
        for index in source.chunks.indices {
            #expect(try source.decode(index) == EncryptedSnapshotOpenTests.chunks[index], "chunk \(index)")
        }
        // Decoding leaves the image sealed: a second decode authenticates again, and agrees.
        #expect(try source.decode(7) == EncryptedSnapshotOpenTests.chunks[7])
    }

    /// The deferral is only the open's: the default still authenticates every chunk at once,
    /// and the chunks it hands over are already plaintext.
    @Test func theDefaultStillAuthenticatesEveryChunkAtOnce() throws {
        let fs = SimulatedFileSystem()
        let (name, _) = try EncryptedSnapshotOpenTests.write(fs)
        let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: Self.cipher)
        try reader.verifyChecksums()
        let source = try #require(reader.takeVerifiedChunks())
        #expect(!source.authenticatesAtDecode)
        #expect(try source.decode(95) == EncryptedSnapshotOpenTests.chunks[95])
    }

    @Test(arguments: [[3], [90], [70, 20], [95, 1, 50]])
    func anAlteredChunkPassesTheChecksumsAndFailsItsFirstDecode(altered: [Int]) throws {
        let fs = SimulatedFileSystem()
        let (name, bytes) = try EncryptedSnapshotOpenTests.write(fs)
        let original = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: Self.cipher)
        fs.setContents(of: "/s/\(name)", to: EncryptedSnapshotOpenTests.alter(bytes, original, chunks: altered))
        let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: Self.cipher)
        try reader.verifyChecksums(deferringAuthentication: true)
        let source = try #require(reader.takeVerifiedChunks())
        for index in source.chunks.indices {
            guard altered.contains(index) else {
                #expect(try source.decode(index) == EncryptedSnapshotOpenTests.chunks[index], "chunk \(index)")
                continue
            }
            let error = #expect(throws: StorageError.self, "chunk \(index)") { _ = try source.decode(index) }
            #expect(error?.code == .corrupted)
            #expect(error?.file == "/s/\(name)")
            #expect(error?.offset == original.chunks[index].offset)
            #expect(error?.message.contains("chunk #\(index) does not authenticate") == true, "\(error.map(String.init(describing:)) ?? "")")
            #expect(error?.message.contains("restore") == true || error?.message.contains("Restore") == true)
        }
        // A chunk read from the file (the image released) is authenticated too.
        let fresh = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: Self.cipher)
        #expect(throws: StorageError.self) { _ = try fresh.readChunk(altered[0]) }
    }

    /// Every bit of an encrypted snapshot flipped in turn, read as a store's open reads it:
    /// the reader's init or `verifyChecksums(deferringAuthentication: true)` refuses each one,
    /// so no accidental change waits for a chunk's first decode.
    @Test func everyBitFlipIsRefusedBeforeAnyChunkIsDecoded() throws {
        let fs = SimulatedFileSystem()
        let chunks = [SnapshotCodecTests.chunk(rows: 60, seed: 1, nulls: true), SnapshotCodecTests.chunk(rows: 40, seed: 2, nulls: false)]
        let name = try SnapshotCodecTests.writeSnapshot(fs, chunks: chunks, cipher: Self.cipher)
        let path = "/s/\(name)"
        var refused = 0
        let bits = try fs.forEachBitFlipped(in: path) { bit in
            do {
                let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: Self.cipher)
                try reader.verifyChecksums(deferringAuthentication: true)
                Issue.record("bit \(bit) passed the open's checks")
            } catch let error as StorageError {
                #expect(error.code == .corrupted || error.code == .unsupportedFormat, "bit \(bit): \(error)")
                refused += 1
            }
        }
        #expect(refused == bits)
    }
}
