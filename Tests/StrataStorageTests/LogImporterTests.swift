import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 22 (restore): frames copied elsewhere, byte for byte, rebuild a store that recovers
/// to the same state; a frame out of sequence or damaged is refused before it is written.
@Suite struct LogImporterTests {
    /// The exact bytes of every frame of a store's log, in LSN order.
    static func frames(of fs: SimulatedFileSystem) throws -> [[UInt8]] {
        var follower = LogFollower(fileSystem: fs, directory: LogFixture.directory, lastLSN: 0)
        return try follower.poll().records.map { record in
            let handle = try fs.open("\(LogFixture.directory)/\(record.segment)", mode: .readOnly)
            defer { try? handle.close() }
            return try handle.read(count: record.bytesOnDisk, at: record.offset)
        }
    }

    @Test func importedFramesRecoverTheSameRecordsAcrossSegmentsAndSalts() throws {
        let source = SimulatedFileSystem()
        let payloads = LogFixture.variedPayloads(count: 40, seed: 22)
        do {
            let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(source, segmentSize: 4096))
            for payload in payloads { _ = try engine.append(kind: 3, payload: payload) }
            try engine.close()
        }
        let copied = try Self.frames(of: source)
        #expect(copied.count == payloads.count)
        let target = SimulatedFileSystem()
        try target.createDirectory(LogFixture.directory)
        var importer = LogImporter(fileSystem: target, directory: LogFixture.directory, after: 0, segmentSize: 4096)
        for frame in copied { try importer.append(frame: frame) }
        try importer.finish()
        #expect(importer.segments.count > 2)
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(target, readOnly: true))
        #expect(recovered.records.map(\.payload) == payloads)
        #expect(recovered.records.allSatisfy { $0.kind == 3 })
        #expect(engine.lastLSN == UInt64(payloads.count))
        #expect(recovered.report.tornTail == nil)
    }

    @Test func aDamagedOrMisplacedFrameIsRefusedBeforeItIsWritten() throws {
        let source = SimulatedFileSystem()
        do {
            let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(source))
            for i in 0..<3 { _ = try engine.append(kind: 1, payload: [UInt8(i), 7, 7]) }
            try engine.close()
        }
        let copied = try Self.frames(of: source)
        let target = SimulatedFileSystem()
        try target.createDirectory(LogFixture.directory)
        var importer = LogImporter(fileSystem: target, directory: LogFixture.directory, after: 0)
        #expect(throws: StorageError.self) { try importer.append(frame: copied[1]) }  // LSN 2 first
        var flipped = copied[0]
        flipped[flipped.count - 1] ^= 0x10
        #expect(throws: StorageError.self) { try importer.append(frame: flipped) }
        #expect(throws: StorageError.self) { try importer.append(frame: Array(copied[0].dropLast())) }
        #expect(importer.lastLSN == 0)
        try importer.append(frame: copied[0])
        #expect(importer.lastLSN == 1)
    }

    /// Whatever a power loss does after ``LogImporter/finish()`` returns, the directory
    /// recovers to the imported snapshot and every imported frame. Each durability step of
    /// the importer is needed for this: without the snapshot's `fdatasync` its bytes can be
    /// torn, without a segment's its frames can be lost, and without the directory sync the
    /// new names (segments, the snapshot's rename) can vanish.
    @Test func aPowerLossAfterFinishLosesNothingImported() throws {
        let source = SimulatedFileSystem()
        let payloads = LogFixture.variedPayloads(count: 24, seed: 5)
        do {
            let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(source, segmentSize: 4096))
            for payload in payloads { _ = try engine.append(kind: 2, payload: payload) }
            try engine.close()
        }
        let copied = try Self.frames(of: source)
        // A snapshot of the state at LSN 10 (its content is the engine's business, not the log's).
        let base: UInt64 = 10
        let scratch = SimulatedFileSystem()
        try scratch.createDirectory("/s")
        let chunk = SnapshotCodecTests.chunk(rows: 300, seed: 9, nulls: true)
        let writer = try SnapshotWriter(fileSystem: scratch, directory: "/s", lsn: base, tables: [SnapshotCodecTests.table],
                                        metadata: [4, 2], createdAt: 1)
        try writer.append(table: 0, columns: chunk)
        try writer.finish()
        let snapshotBytes = try { () throws -> [UInt8] in
            let handle = try scratch.open("/s/\(writer.finalName)", mode: .readOnly)
            defer { try? handle.close() }
            return try handle.read(count: Int(try handle.size()), at: 0)
        }()

        let target = SimulatedFileSystem()
        try target.createDirectory(LogFixture.directory)
        try target.syncDirectory("/")
        var importer = LogImporter(fileSystem: target, directory: LogFixture.directory, after: base, segmentSize: 4096)
        try importer.writeSnapshot(snapshotBytes, lsn: base)
        for frame in copied[Int(base)...] { try importer.append(frame: frame) }
        try importer.finish()
        #expect(importer.segments.count > 1)

        for seed in UInt64(0)..<48 {
            let image = target.powerLossImage(seed: seed)
            let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image, readOnly: true))
            #expect(recovered.snapshot?.lsn == base, "power-loss seed \(seed): the imported snapshot is gone")
            #expect(try recovered.snapshot?.readChunk(0) == chunk, "power-loss seed \(seed): the imported snapshot is damaged")
            #expect(recovered.records.map(\.payload) == Array(payloads[Int(base)...]), "power-loss seed \(seed): imported frames were lost")
            #expect(engine.lastLSN == UInt64(payloads.count))
            try engine.close()
        }
    }

    /// The frames of an encrypted log, with their segments' encryption headers, and the
    /// number of log generations they span.
    static func encryptedFrames(of fs: SimulatedFileSystem) throws -> [(bytes: [UInt8], encryption: [UInt8]?)] {
        var follower = LogFollower(fileSystem: fs, directory: LogFixture.directory, lastLSN: 0, cipher: SweepCipher.cipher(true))
        return try follower.poll().records.map { record in
            let path = "\(LogFixture.directory)/\(record.segment)"
            let handle = try fs.open(path, mode: .readOnly)
            defer { try? handle.close() }
            return (try handle.read(count: record.bytesOnDisk, at: record.offset), try SegmentEncryption.header(of: handle, path: path))
        }
    }

    /// Issue 23 with issue 22: an encrypted store's frames are copied still encrypted, with
    /// their segment's encryption header; the importer writes each log generation's header
    /// in front of its frames, so the copy recovers with the store's key and no other, and a
    /// frame that comes without its header (or a plain one with one) is refused.
    @Test func encryptedFramesImportUnderTheirOwnGenerationsHeaders() throws {
        let source = SimulatedFileSystem()
        let payloads = LogFixture.variedPayloads(count: 30, seed: 23)
        // Three opens: three log generations, each with its own salt.
        for part in 0..<3 {
            let (engine, _) = try StorageEngine.open(at: LogFixture.directory,
                                                     options: LogFixture.options(source, segmentSize: 4096, cipher: SweepCipher.cipher(true)))
            for payload in payloads[part * 10..<part * 10 + 10] { _ = try engine.append(kind: 4, payload: payload) }
            try engine.close()
        }
        let copied = try Self.encryptedFrames(of: source)
        #expect(copied.count == payloads.count)
        #expect(Set(copied.compactMap(\.encryption)).count == 3)

        let target = SimulatedFileSystem()
        try target.createDirectory(LogFixture.directory)
        var importer = LogImporter(fileSystem: target, directory: LogFixture.directory, after: 0, segmentSize: 4096)
        #expect(throws: StorageError.self) { try importer.append(frame: copied[0].bytes) }
        let plain = SimulatedFileSystem()
        do {
            let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(plain))
            _ = try engine.append(kind: 4, payload: [1, 2, 3])
            try engine.close()
        }
        #expect(throws: StorageError.self) { try importer.append(frame: try Self.frames(of: plain)[0], encryption: copied[0].encryption) }
        #expect(importer.lastLSN == 0)
        for frame in copied { try importer.append(frame: frame.bytes, encryption: frame.encryption) }
        try importer.finish()
        #expect(importer.segments.count >= 3)

        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory,
                                                         options: LogFixture.options(target, readOnly: true, cipher: SweepCipher.cipher(true)))
        #expect(recovered.records.map(\.payload) == payloads)
        #expect(engine.lastLSN == UInt64(payloads.count))
        try engine.close()
        #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(target, readOnly: true))
        }
    }

    /// An encrypted snapshot copied without its key is checked as far as it can be (header,
    /// encryption header, trailer, the index's checksum, its LSN): damage is `corrupted`
    /// before anything is named, and an intact one is written as it came.
    @Test func anEncryptedSnapshotIsCheckedWithoutItsKey() throws {
        let scratch = SimulatedFileSystem()
        try scratch.createDirectory("/s")
        let writer = try SnapshotWriter(fileSystem: scratch, directory: "/s", lsn: 10, tables: [SnapshotCodecTests.table],
                                        metadata: [4, 2], createdAt: 1, cipher: SweepCipher.cipher(true))
        try writer.append(table: 0, columns: SnapshotCodecTests.chunk(rows: 50, seed: 3, nulls: false))
        try writer.finish()
        let handle = try scratch.open("/s/\(writer.finalName)", mode: .readOnly)
        let bytes = try handle.read(count: Int(try handle.size()), at: 0)
        try handle.close()

        func code(_ damaged: [UInt8], lsn: UInt64 = 10) -> StorageError.Code? {
            let target = SimulatedFileSystem()
            try? target.createDirectory(LogFixture.directory)
            let importer = LogImporter(fileSystem: target, directory: LogFixture.directory, after: lsn)
            do { try importer.writeSnapshot(damaged, lsn: lsn) } catch let error as StorageError { return error.code } catch { return nil }
            return try? target.contentsOfDirectory(LogFixture.directory).contains(StoreFileNames.snapshot(lsn: lsn)) == true ? nil : .io
        }
        #expect(code(bytes) == nil)
        #expect(code(bytes, lsn: 11) == .corrupted)
        for offset in [3, 50, bytes.count - 30, bytes.count - 3] {   // header, encryption header, index, trailer
            var damaged = bytes
            damaged[offset] ^= 0x40
            #expect(code(damaged) == .corrupted, "byte \(offset)")
        }
        #expect(code(Array(bytes.dropLast(5))) == .corrupted)
    }
}
