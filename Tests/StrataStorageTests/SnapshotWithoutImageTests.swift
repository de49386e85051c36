import Testing
import StrataTestSupport
@testable import StrataStorage

/// A store's open verifies every snapshot chunk's checksum reading the file in windows and
/// keeps nothing (`verifyChecksums(deferringAuthentication: true, keepingImage: false)`,
/// issue 21): every accidental change is still refused at open, wherever it is, and each
/// later decode reads its chunk from the file again and verifies it again before using it, so
/// damage made after the open is a `corrupted` error, never wrong values.
@Suite struct SnapshotWithoutImageTests {
    static func isCorrupted(_ body: () throws -> Void) -> Bool {
        do { try body(); return false } catch let error as StorageError { return error.code == .corrupted } catch { return false }
    }

    /// Every bit of a snapshot flipped in turn, verified in windows smaller than the chunk
    /// region (so the chunks come in several reads): refused at open or (encrypted, deferred)
    /// by a decode, never read back changed.
    @Test(arguments: [false, true])
    func everyBitFlipIsRefused(encrypted: Bool) throws {
        let fs = SimulatedFileSystem()
        let cipher = SweepCipher.cipher(encrypted)
        let chunks = [SnapshotCodecTests.chunk(rows: 60, seed: 1, nulls: true), SnapshotCodecTests.chunk(rows: 40, seed: 2, nulls: false),
                      SnapshotCodecTests.chunk(rows: 30, seed: 3, nulls: true)]
        let name = try SnapshotCodecTests.writeSnapshot(fs, chunks: chunks, cipher: cipher)
        let path = "/s/\(name)"
        var refused = 0
        let bits = try fs.forEachBitFlipped(in: path) { bit in
            do {
                let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: cipher)
                try reader.verifyChecksums(deferringAuthentication: true, keepingImage: false, windowBytes: 64)
                let source = try #require(reader.takeVerifiedChunks())
                #expect(source.residentBytes == 0)
                let read = try source.chunks.indices.map(source.decode)
                #expect(read == chunks && reader.lsn == 77, "bit \(bit) changed the data silently")
            } catch let error as StorageError {
                #expect(error.code == .corrupted || error.code == .unsupportedFormat, "bit \(bit): \(error)")
                refused += 1
            }
        }
        // Only the reserved header word is covered by no check (as with an image).
        #expect(refused >= bits - 32)
    }

    /// The windowed check reports the same error, at the same chunk, as the one read of the
    /// whole region, for damage in the first, a middle and the last chunk.
    @Test(arguments: [0, 40, 95])
    func windowsReportTheSameChunkAsOneRead(damagedChunk: Int) throws {
        let fs = SimulatedFileSystem()
        let (name, bytes) = try EncryptedSnapshotOpenTests.write(fs)
        let cipher = SweepCipher.cipher(true)
        let layout = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: cipher)
        var damaged = bytes
        damaged[Int(layout.chunks[damagedChunk].offset) + layout.chunks[damagedChunk].length - 3] ^= 0x04
        fs.setContents(of: "/s/\(name)", to: damaged)
        func error(_ verify: (SnapshotReader) throws -> Void) throws -> StorageError? {
            let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: cipher)
            do { try verify(reader); return nil } catch let error as StorageError { return error }
        }
        let whole = try #require(try error { try $0.verifyChecksums(deferringAuthentication: true) })
        for window in [1, 5_000, 1 << 20] {
            let windowed = try #require(try error { try $0.verifyChecksums(deferringAuthentication: true, keepingImage: false, windowBytes: window) },
                                        "window \(window)")
            #expect(windowed.code == whole.code && windowed.offset == whole.offset && windowed.message == whole.message, "window \(window)")
        }
        #expect(whole.offset == layout.chunks[damagedChunk].offset)
    }

    /// Without an image, the source reads each chunk from the file when it decodes it and
    /// checks it first: damage made after the open fails that chunk's decode (the others read
    /// back), where a source holding the image verified at open decodes what it verified.
    @Test(arguments: [false, true])
    func aDecodeVerifiesTheBytesItReads(encrypted: Bool) throws {
        let fs = SimulatedFileSystem()
        let cipher = SweepCipher.cipher(encrypted)
        let chunks = (0..<6).map { SnapshotCodecTests.chunk(rows: 200, seed: UInt64($0), nulls: $0 % 2 == 0) }
        let name = try SnapshotCodecTests.writeSnapshot(fs, chunks: chunks, cipher: cipher)
        let path = "/s/\(name)"
        let original = fs.contents(of: path)!
        let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: cipher)
        try reader.verifyChecksums(deferringAuthentication: true, keepingImage: false)
        let source = try #require(reader.takeVerifiedChunks())
        #expect(source.residentBytes == 0 && source.authenticatesAtDecode == encrypted)
        #expect(reader.takeVerifiedChunks() == nil, "handed over twice")
        #expect(try source.decode(0) == chunks[0])
        let fourth = reader.chunks[4]
        var damaged = original
        damaged[Int(fourth.offset) + fourth.length / 2] ^= 0x20
        fs.setContents(of: path, to: damaged)
        let error = #expect(throws: StorageError.self) { _ = try source.decode(4) }
        #expect(error?.code == .corrupted && error?.offset == fourth.offset && error?.file == path)
        // A flipped bit is damage, encrypted or not, never reported as a forged chunk.
        #expect(error?.message.contains("chunk checksum mismatch") == true, "\(error.map(String.init(describing:)) ?? "")")
        for index in [0, 1, 2, 3, 5] { #expect(try source.decode(index) == chunks[index], "chunk \(index)") }
        // Cut short after the open.
        fs.setContents(of: path, to: Array(original[..<(Int(fourth.offset) + 10)]))
        #expect(Self.isCorrupted { _ = try source.decode(4) })
        #expect(Self.isCorrupted { _ = try source.decode(5) })
        fs.setContents(of: path, to: original)
        #expect(try source.decode(4) == chunks[4])
    }
}
