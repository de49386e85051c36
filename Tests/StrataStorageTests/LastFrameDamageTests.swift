import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 15: a bit flip in the last, complete frame of the log used to be taken for a torn
/// write, and the next writable open silently dropped an acknowledged transaction. The
/// durable-LSN marker (FORMAT §6.3) now says which frames had been synced: damage to them is
/// corruption. Where the marker does not know (it was lost, or the frames were synced after
/// its last update reached the disk), the old rule applies, and the cut bytes of a whole
/// frame are kept in a quarantine file rather than deleted.
@Suite struct LastFrameDamageTests {
    static let payloads = (0..<10).map { i in (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) } }

    /// A closed log of ten frames with one bit flipped in the payload of the last one.
    static func damagedLog() throws -> (SimulatedFileSystem, String, [UInt8]) {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: payloads)
        let path = try LogFixture.segmentPaths(fs)[0]
        var bytes = try #require(fs.contents(of: path))
        bytes[bytes.count - 20] ^= 0x08
        fs.setContents(of: path, to: bytes)
        return (fs, path, bytes)
    }

    @Test func flipInASyncedLastFrameIsCorruptionNotATornTail() throws {
        let (fs, path, bytes) = try Self.damagedLog()
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .corrupted && error?.file == path && error?.lastGoodLSN == 9)
        #expect(error?.message.contains("durable-LSN marker") == true)
        #expect(fs.contents(of: path) == bytes, "a failed open changed the log")
        // Point-in-time recovery opens at LSN 9, keeps the frame aside, and new appends work.
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, mode: .pointInTime))
        #expect(recovered.records.map(\.payload) == Array(Self.payloads.prefix(9)))
        #expect(recovered.report.quarantinedFiles.count == 1)
        #expect(try engine.append(kind: 1, payload: [1]) == 10)
        try engine.close()
    }

    @Test func withoutTheMarkerTheDamagedFrameIsCutButKept() throws {
        let (fs, _, bytes) = try Self.damagedLog()
        try LogFixture.forgetSyncs(fs)
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        try engine.close()
        #expect(recovered.records.map(\.payload) == Array(Self.payloads.prefix(9)))
        let torn = try #require(recovered.report.tornTail)
        let aside = try #require(recovered.report.quarantinedFiles.first)
        let kept = try #require(fs.contents(of: "\(LogFixture.directory)/\(aside)"))
        // The copy is the damaged frame as it was on disk: all of it, flip included.
        #expect(kept.count == Int(torn.bytesDiscarded) && kept.count > 200)
        #expect(kept == Array(bytes.suffix(kept.count)))
    }

    @Test func halfWrittenLastFrameIsCutWithoutACopy() throws {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: (0..<5).map { [UInt8](repeating: UInt8($0), count: 300) })
        let path = try LogFixture.segmentPaths(fs)[0]
        let bytes = try #require(fs.contents(of: path))
        fs.setContents(of: path, to: Array(bytes.dropLast(7)))
        try LogFixture.forgetSyncs(fs)
        let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(recovered.records.count == 4 && recovered.report.tornTail != nil)
        #expect(recovered.report.quarantinedFiles.isEmpty)
    }

    /// Point-in-time recovery ends the log before what the marker says was synced; it must
    /// lower the marker first, or a later genuine torn tail would be refused as corruption.
    @Test func pointInTimeRecoveryLowersTheMarkerSoLaterTornTailsStayTorn() throws {
        let (fs, _, _) = try Self.damagedLog()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, mode: .pointInTime))
        try engine.close()
        // A new process appends without syncing, and the power goes out mid-write.
        let (writer, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, durability: .never))
        for i in 0..<4 { _ = try writer.append(kind: 1, payload: [UInt8](repeating: UInt8(i), count: 500)) }
        for seed in UInt64(1)...12 {
            let image = fs.powerLossImage(seed: seed)
            do {
                let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image))
                #expect(Array(recovered.records.prefix(9).map(\.payload)) == Array(Self.payloads.prefix(9)), "seed \(seed)")
            } catch {
                Issue.record("seed \(seed): a torn tail of unsynced appends was refused: \(error)")
            }
        }
        try writer.close()
    }
}

extension LastFrameDamageTests {
    /// Issue 16: a cut inside the header or the first frame of the only segment used to look
    /// like a store whose creation was interrupted, and a writable open deleted or rewrote
    /// what was left. When the marker shows the segment held synced transactions, it is
    /// damage: every open refuses it and nothing is written.
    @Test(arguments: [10, 40, 60])
    func cutAtTheStartOfASyncedSegmentIsDamageAndWritesNothing(keeping bytesKept: Int) throws {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: [[UInt8](repeating: 7, count: 90), [1], [2]])
        let path = try LogFixture.segmentPaths(fs)[0]
        let cut = Array(try #require(fs.contents(of: path)).prefix(bytesKept))
        fs.setContents(of: path, to: cut)
        let before = try fs.contentsOfDirectory(LogFixture.directory)
        for options in [LogFixture.options(fs, readOnly: true), LogFixture.options(fs)] {
            let error = #expect(throws: StorageError.self) { _ = try StorageEngine.open(at: LogFixture.directory, options: options) }
            #expect(error?.code == .corrupted && error?.file == path)
        }
        #expect(try fs.contentsOfDirectory(LogFixture.directory) == before)
        #expect(fs.contents(of: path) == cut)
    }
}
