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
}
