import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 15: a bit flip in the last, complete frame of the log cannot be told from a torn
/// write by anything recovery reads (FORMAT §10.3), so it is cut as a torn tail — but the
/// cut bytes of a whole frame are kept in a quarantine file, never deleted, and reported.
@Suite struct LastFrameDamageTests {
    @Test func flipInTheLastCompleteFrameIsCutButKept() throws {
        let fs = SimulatedFileSystem()
        let payloads = (0..<10).map { i in (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) } }
        try LogFixture.writeLog(fs, payloads: payloads)
        let path = try LogFixture.segmentPaths(fs)[0]
        var bytes = try #require(fs.contents(of: path))
        let original = bytes
        bytes[bytes.count - 20] ^= 0x08  // in the payload of frame 10
        fs.setContents(of: path, to: bytes)
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        try engine.close()
        #expect(recovered.records.map(\.payload) == Array(payloads.prefix(9)))
        let torn = try #require(recovered.report.tornTail)
        let aside = try #require(recovered.report.quarantinedFiles.first)
        let kept = try #require(fs.contents(of: "\(LogFixture.directory)/\(aside)"))
        #expect(kept.count == Int(torn.bytesDiscarded))
        // The copy is the damaged frame as it was on disk: all of it, flip included.
        #expect(kept == Array(bytes.suffix(kept.count)) && kept != Array(original.suffix(kept.count)))
        #expect(kept.count > 200)
    }

    @Test func halfWrittenLastFrameIsCutWithoutACopy() throws {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: (0..<5).map { [UInt8]( repeating: UInt8($0), count: 300) })
        let path = try LogFixture.segmentPaths(fs)[0]
        let bytes = try #require(fs.contents(of: path))
        fs.setContents(of: path, to: Array(bytes.dropLast(7)))
        let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(recovered.records.count == 4 && recovered.report.tornTail != nil)
        #expect(recovered.report.quarantinedFiles.isEmpty)
    }
}
