import Testing
import StrataTestSupport
@testable import StrataStorage

@Suite struct CorruptionRecoveryTests {
    static func damagedStore(frames: Int = 10, damageFrame: Int = 4) throws -> (SimulatedFileSystem, String, Int) {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: (0..<frames).map { Array(repeating: UInt8($0), count: 100 + $0) })
        let path = try LogFixture.segmentPaths(fs)[0]
        var bytes = fs.contents(of: path)!
        var offset = 32
        for _ in 0..<damageFrame {
            bytes.withUnsafeBytes { raw in
                if case .success(let h) = FrameCodec.decodeHeader(raw, at: offset, end: raw.count) { offset += h.frameLength }
            }
        }
        bytes[offset + 50] ^= 0xFF
        fs.setContents(of: path, to: bytes)
        return (fs, path, offset)
    }

    @Test func strictModeFailsNamingFileOffsetAndLastGoodLSN() throws {
        let (fs, path, offset) = try Self.damagedStore()
        let before = fs.contents(of: path)
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .corrupted)
        #expect(error?.file == path && error?.offset == Int64(offset) && error?.lastGoodLSN == 4)
        #expect(error?.message.contains("pointInTime") == true)
        #expect(fs.contents(of: path) == before)
    }

    @Test func pointInTimeKeepsThePrefixAndMovesTheRestAside() throws {
        let (fs, path, offset) = try Self.damagedStore()
        let before = fs.contents(of: path)!
        let (engine, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, mode: .pointInTime))
        #expect(state.records.count == 4)
        #expect(state.report.corruption != nil)
        #expect(state.report.quarantinedFiles.count == 1)
        let aside = "\(LogFixture.directory)/\(state.report.quarantinedFiles[0])"
        #expect(fs.contents(of: aside)! == Array(before[offset...]))
        #expect(try engine.append(kind: 1, payload: [42]) == 5)
        try engine.close()
        let (_, again) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(again.records.map(\.lsn) == [1, 2, 3, 4, 5])
    }

    @Test func damageInAnOlderSegmentIsCorruption() throws {
        let fs = SimulatedFileSystem()
        var rng = SplitMix64(seed: 3)
        try LogFixture.writeLog(fs, payloads: (0..<40).map { _ in (0..<300).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }, segmentSize: 4096)
        let segments = try LogFixture.segmentPaths(fs)
        #expect(segments.count >= 3)
        var bytes = fs.contents(of: segments[0])!
        bytes[bytes.count - 3] ^= 1 // the last frame of a segment that is not the newest
        fs.setContents(of: segments[0], to: bytes)
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .corrupted && error?.file == segments[0])
    }

    @Test func segmentsRotateAndReplayInOrder() throws {
        let fs = SimulatedFileSystem()
        let payloads = (0..<100).map { i in (0..<(50 + i)).map { UInt8(truncatingIfNeeded: $0 * i) } }
        try LogFixture.writeLog(fs, payloads: payloads, segmentSize: 4096)
        #expect(try LogFixture.segmentPaths(fs).count > 3)
        let (_, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(state.records.map(\.payload) == payloads)
        #expect(state.records.map(\.lsn) == Array(1...100))
    }

    @Test func newerMajorVersionIsRefused() throws {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: [[1]])
        let path = try LogFixture.segmentPaths(fs)[0]
        var bytes = fs.contents(of: path)!
        bytes[8] = UInt8(FormatVersion.newestReadableMajor + 1)
        let crc = CRC32C.checksum(Array(bytes[0..<28]))
        for i in 0..<4 { bytes[28 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        fs.setContents(of: path, to: bytes)
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("newer Strata") == true)
    }

    @Test func notAStoreAndMissingStoreAreClearErrors() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory("/other")
        _ = try fs.open("/other/notes.txt", mode: .createNew)
        #expect(throws: StorageError.self) { _ = try StorageEngine.open(at: "/other", options: LogFixture.options(fs)) }
        var options = LogFixture.options(fs)
        options.createIfMissing = false
        let error = #expect(throws: StorageError.self) { _ = try StorageEngine.open(at: "/missing", options: options) }
        #expect(error?.code == .notAStore)
    }

    @Test func secondWriterInTheSameProcessIsLocked() throws {
        let fs = SimulatedFileSystem()
        let (first, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .locked)
        // Readers take no lock.
        _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, readOnly: true))
        try first.close()
        _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
    }
}
