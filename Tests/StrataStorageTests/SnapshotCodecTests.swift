import Testing
import PropertyBased
import StrataTestSupport
@testable import StrataStorage

@Suite struct SnapshotCodecTests {
    static let table = TableDescriptor(name: "Item", columns: [
        .init(name: "pk", kind: .int64), .init(name: "done", kind: .bool),
        .init(name: "score", kind: .double), .init(name: "name", kind: .bytes),
    ])

    static func chunk(rows: Int, seed: UInt64, nulls: Bool) -> [ColumnChunk] {
        var rng = SplitMix64(seed: seed)
        let validity: [Bool]? = nulls ? (0..<rows).map { _ in rng.next() % 4 != 0 } : nil
        var names = ByteColumn()
        for _ in 0..<rows { names.append(Array("item-\(rng.next() % 1000)".utf8)) }
        return [
            ColumnChunk(values: .int64((0..<rows).map { _ in Int64(bitPattern: rng.next()) % 1_000_000 })),
            ColumnChunk(values: .bool((0..<rows).map { _ in rng.next() % 2 == 0 }), validity: validity),
            ColumnChunk(values: .double((0..<rows).map { _ in Double(rng.next() % 10_000) / 7 }), validity: validity),
            ColumnChunk(values: .bytes(names), validity: validity),
        ]
    }

    static func writeSnapshot(_ fs: SimulatedFileSystem, chunks: [[ColumnChunk]], metadata: [UInt8] = [1, 2, 3],
                              cipher: (any StoreCipher)? = nil) throws -> String {
        try fs.createDirectory("/s")
        let writer = try SnapshotWriter(fileSystem: fs, directory: "/s", lsn: 77, tables: [table],
                                        metadata: metadata, createdAt: 5, cipher: cipher)
        for c in chunks { try writer.append(table: 0, columns: c) }
        try writer.finish()
        return writer.finalName
    }

    @Test func roundTripsRandomChunks() async {
        await propertyCheck(input: Gen.int(in: 0...4).array(of: 0...4), Gen.uint64(), Gen.bool) { sizes, seed, nulls in
            let fs = SimulatedFileSystem()
            let chunks = sizes.enumerated().map { Self.chunk(rows: $1 * 37, seed: seed &+ UInt64($0), nulls: nulls) }
            let name = try! Self.writeSnapshot(fs, chunks: chunks)
            let reader = try! SnapshotReader(fileSystem: fs, directory: "/s", name: name)
            #expect(reader.lsn == 77 && reader.metadata == [1, 2, 3] && reader.tables == [Self.table])
            #expect(reader.chunks.count == chunks.count)
            for (i, expected) in chunks.enumerated() {
                #expect(try! reader.readChunk(i) == expected)
                #expect(reader.chunks[i].rowCount == expected[0].count)
                #expect(Array(reader.chunks[i].statistics) == expected.map(ColumnStatistics.init(of:)))
            }
        }
    }

    @Test func statisticsIgnoreNullsAndNaN() {
        let stats = ColumnStatistics(of: ColumnChunk(values: .double([3, .nan, -1, 100]), validity: [true, true, true, false]))
        #expect(stats.nullCount == 1)
        #expect(stats.range == .double(min: -1, max: 3))
        let ints = ColumnStatistics(of: ColumnChunk(values: .int64([5, 9, -2])))
        #expect(ints.range == .int(min: -2, max: 9))
    }

    @Test func unfinishedSnapshotIsInvisible() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory("/s")
        let writer = try SnapshotWriter(fileSystem: fs, directory: "/s", lsn: 3, tables: [Self.table], metadata: [], createdAt: 0)
        try writer.append(table: 0, columns: Self.chunk(rows: 10, seed: 1, nulls: false))
        #expect(try fs.contentsOfDirectory("/s") == ["snapshot-00000000000000000003.snap.tmp"])
        writer.abandon()
        #expect(try fs.contentsOfDirectory("/s").isEmpty)
    }

    /// Every bit of a snapshot flipped in turn: the reader always reports corruption (when the
    /// flipped bit matters) and never crashes or returns different data.
    /// Also on an encrypted snapshot (AES-GCM chunks and footer).
    @Test(arguments: [false, true])
    func everyBitFlipIsDetected(encrypted: Bool) throws {
        let fs = SimulatedFileSystem()
        let cipher = SweepCipher.cipher(encrypted)
        let chunks = [Self.chunk(rows: 60, seed: 1, nulls: true), Self.chunk(rows: 40, seed: 2, nulls: false)]
        let name = try Self.writeSnapshot(fs, chunks: chunks, cipher: cipher)
        let path = "/s/\(name)"
        var detected = 0
        let bits = try fs.forEachBitFlipped(in: path) { bit in
            do {
                let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: cipher)
                try reader.verifyChecksums()
                let read = try (0..<reader.chunks.count).map(reader.readChunk)
                // Only bits no check covers may go unnoticed: the reserved header word.
                #expect(read == chunks && reader.lsn == 77, "bit \(bit) changed the data silently")
            } catch let error as StorageError {
                #expect(error.code == .corrupted || error.code == .unsupportedFormat, "bit \(bit): \(error)")
                detected += 1
            }
        }
        #expect(detected == bits)
        print("snapshot bit flips\(encrypted ? " (encrypted)" : ""): \(bits), detected: \(detected)")
    }

    /// `verifyChecksums()` keeps the bytes it verified and `readChunk` decodes from them; a
    /// chunk read from the file (no verified image, or after `releaseVerifiedImage()`) is
    /// checksummed first, so damage on disk is a `corrupted` error, never wrong data.
    @Test func chunkReadFromFileIsVerified() throws {
        let fs = SimulatedFileSystem()
        let chunks = [Self.chunk(rows: 60, seed: 3, nulls: true), Self.chunk(rows: 40, seed: 4, nulls: false)]
        let name = try Self.writeSnapshot(fs, chunks: chunks)
        let path = "/s/\(name)"
        let original = fs.contents(of: path)!
        func isCorrupted(_ body: () throws -> Void) -> Bool {
            do { try body(); return false } catch let error as StorageError { return error.code == .corrupted } catch { return false }
        }
        let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name)
        try reader.verifyChecksums()
        let second = reader.chunks[1]
        for offset in [Int(second.offset) + 3, Int(second.offset) + second.length - 1] {
            var damaged = original
            damaged[offset] ^= 0x10
            fs.setContents(of: path, to: damaged)
            // Verified before the damage: served from memory, unchanged.
            #expect(try reader.readChunk(1) == chunks[1])
            // A reader without the image checks the file and refuses the chunk.
            let fresh = try SnapshotReader(fileSystem: fs, directory: "/s", name: name)
            #expect(try fresh.readChunk(0) == chunks[0])
            #expect(isCorrupted { _ = try fresh.readChunk(1) }, "offset \(offset)")
            #expect(isCorrupted { try fresh.verifyChecksums() }, "offset \(offset)")
        }
        reader.releaseVerifiedImage()
        #expect(isCorrupted { _ = try reader.readChunk(1) })
        // Cut short after the reader was opened.
        fs.setContents(of: path, to: Array(original[..<(Int(second.offset) + 10)]))
        #expect(isCorrupted { _ = try reader.readChunk(1) })
        fs.setContents(of: path, to: original)
        #expect(try reader.readChunk(1) == chunks[1])
    }
}
