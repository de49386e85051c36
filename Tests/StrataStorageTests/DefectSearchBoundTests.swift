import Testing
import StrataTestSupport
@testable import StrataStorage

/// The search for frames after a defect does O(n) work on any input (`docs/FORMAT.md`
/// 10.2, step 4), and when it cannot finish it reports corruption, never a torn tail.
/// Work is counted in bytes checksummed, not timed.
@Suite struct DefectSearchBoundTests {
    static let salt: UInt32 = 0x5A17
    static let name = "wal-00000000000000000001.log"

    /// A frame header at every 48 bytes up to `size` bytes in all, each with the segment's
    /// salt, a plausible LSN and `syncedLSN`, and a declared length reaching the end of the
    /// file, but a wrong checksum: checksumming every candidate takes about `size² / 96`
    /// bytes.
    static func candidates(from start: Int, to size: Int, salt: UInt32?) -> [UInt8] {
        var out: [UInt8] = []
        var position = start
        while position + FrameHeader.size <= size {
            let length = size - position - FrameHeader.size
            let header = FrameHeader(kind: 1, isCompressed: false, storedLength: length, rawLength: length,
                                     lsn: 3, timestamp: 0, syncedLSN: 3, salt: salt ?? UInt32(position),
                                     checksum: 0)
            out += header.encodedPrefix() + [0, 0, 0, 0]
            position += FrameHeader.size
        }
        return out + [UInt8](repeating: 0xEE, count: size - position)
    }

    /// A segment with two good frames, a damaged one (LSN 3), then `size` bytes in all of
    /// crafted candidates.
    static func craftedSegment(size: Int) throws -> (bytes: [UInt8], defect: Int) {
        var bytes = SegmentHeader(salt: salt, firstLSN: 1).encoded()
        bytes += try FrameCodec.encode([1, 2, 3], kind: 1, lsn: 1, timestamp: 0, syncedLSN: 0, salt: salt)
        bytes += try FrameCodec.encode([4, 5, 6], kind: 1, lsn: 2, timestamp: 0, syncedLSN: 1, salt: salt)
        let defect = bytes.count
        bytes += [UInt8](repeating: 0x58, count: 20)  // the damaged frame: bad magic
        return (bytes + candidates(from: bytes.count, to: size, salt: salt), defect)
    }

    static func budget(searching count: Int) -> Int { 4 * count + 64 * 1024 }

    @Test func searchAfterDefectIsLinearAndReportsCorruption() throws {
        let size = 96 * 1024
        let (bytes, defect) = try Self.craftedSegment(size: size)
        let scan = SegmentScanner.scan(name: Self.name, bytes: bytes)
        #expect(scan.records.map(\.lsn) == [1, 2])
        #expect(scan.defect?.offset == defect)
        // Unbounded, this input costs about size² / 96 ≈ 100 MB of checksumming.
        #expect(scan.searchChecksummedBytes <= Self.budget(searching: size))
        #expect(scan.searchCutShort)
        #expect(scan.durableFrameAfterDefect == nil)
        guard case .corrupted(let offset, _) = SegmentVerdict(scan, isNewest: true, hasAnyFrame: { true }) else {
            Issue.record("a search cut short must not be taken for a torn tail")
            return
        }
        #expect(offset == defect)
    }

    /// An honest torn tail followed by whole frames that were never synced (written out of
    /// order) stays a torn tail: each frame is checksummed about once.
    @Test func honestFramesAfterATornWriteStayWithinTheBudget() throws {
        var bytes = SegmentHeader(salt: Self.salt, firstLSN: 1).encoded()
        bytes += try FrameCodec.encode([1], kind: 1, lsn: 1, timestamp: 0, syncedLSN: 0, salt: Self.salt)
        bytes += [UInt8](repeating: 0, count: 100)  // the torn frame 2
        for lsn in UInt64(3)...200 {
            bytes += try FrameCodec.encode([UInt8](repeating: UInt8(lsn), count: 500), kind: 1, lsn: lsn,
                                           timestamp: 0, syncedLSN: 1, salt: Self.salt)
        }
        let scan = SegmentScanner.scan(name: Self.name, bytes: bytes)
        #expect(!scan.searchCutShort && scan.anyValidFrameAfterDefect)
        #expect(scan.searchChecksummedBytes <= bytes.count)
        #expect(SegmentVerdict(scan, isNewest: true, hasAnyFrame: { true }) == .tornTail(offset: 32 + 48 + 1))
    }

    /// The same bound for the search through a newest segment whose header is unusable:
    /// when it runs out, a frame is assumed to be there (corruption, not a torn creation).
    @Test func searchForAnyFrameIsLinearAndAssumesTheWorst() {
        let size = 96 * 1024
        let bytes = [UInt8](repeating: 0, count: SegmentHeader.size) + Self.candidates(from: SegmentHeader.size, to: size, salt: nil)
        var checksummed = 0
        #expect(SegmentScanner.mayContainFrame(bytes, checksummedBytes: &checksummed))
        #expect(checksummed <= Self.budget(searching: size))
        // Without candidates the search finds nothing, as before.
        var none = 0
        #expect(!SegmentScanner.mayContainFrame([UInt8](repeating: 0x11, count: size), checksummedBytes: &none))
    }

    /// End to end: a strict open of a store whose newest segment ends in such bytes fails
    /// with `corrupted`, naming the segment and the damaged frame, and cuts nothing.
    @Test func strictOpenRefusesACraftedTail() throws {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: [[1], [2]])
        let path = try #require(try LogFixture.segmentPaths(fs).first)
        let original = try #require(fs.contents(of: path))
        let salt = try SegmentHeader.decode(original).get().salt
        var damaged = original + [UInt8](repeating: 0x58, count: 20)
        damaged += Self.candidates(from: damaged.count, to: 64 * 1024, salt: salt)
        fs.setContents(of: path, to: damaged)
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .corrupted)
        #expect(error?.file == path)
        #expect(error?.offset == Int64(original.count))
        #expect(fs.contents(of: path) == damaged)
    }
}
