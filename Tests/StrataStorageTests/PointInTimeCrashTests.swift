import Testing
import StrataTestSupport
@testable import StrataStorage

/// Issue 15, confirmed bug 2: point-in-time recovery interrupted by a crash (and a power
/// loss after it) must leave a store that still opens — at least in point-in-time mode — to
/// the same prefix, and must keep every byte it moves aside (FORMAT §6.2: damaged log data is
/// never deleted). It used to truncate and sync the damaged segment before the directory
/// sync that made the quarantine file and the renames durable.
///
/// Knob: `STRATA_PIT_CRASH_SEEDS` (power-loss seeds per crash point, default 6).
@Suite struct PointInTimeCrashTests {
    /// A log of 40 frames over several segments, with a frame in the middle of the first
    /// segment damaged; returns the disk, the payloads before the damage, and the original
    /// bytes that recovery must never lose (the damaged segment from the bad frame on, and
    /// each later segment whole).
    static func damagedStore() throws -> (fs: SimulatedFileSystem, prefix: [[UInt8]], kept: [[UInt8]]) {
        let fs = SimulatedFileSystem()
        var rng = SplitMix64(seed: 11)
        let payloads = (0..<40).map { _ in (0..<300).map { _ in UInt8(truncatingIfNeeded: rng.next() % 9) } }
        try LogFixture.writeLog(fs, payloads: payloads, segmentSize: 4096)
        let segments = try LogFixture.segmentPaths(fs).sorted()
        var bytes = try #require(fs.contents(of: segments[0]))
        var offset = SegmentHeader.size
        for _ in 0..<3 {
            bytes.withUnsafeBytes { raw in
                if case .success(let h) = FrameCodec.decodeHeader(raw, at: offset, end: raw.count) { offset += h.frameLength }
            }
        }
        bytes[offset + 60] ^= 0x20
        fs.setContents(of: segments[0], to: bytes)
        let kept = [Array(bytes[offset...])] + segments.dropFirst().map { fs.contents(of: $0)! }
        return (fs, Array(payloads.prefix(3)), kept)
    }

    /// Whether every piece of `kept` is still somewhere in the store directory of `fs`, as a
    /// whole file or as the end of one.
    static func keepsEveryByte(_ fs: SimulatedFileSystem, _ kept: [[UInt8]]) throws -> Bool {
        let files = try fs.contentsOfDirectory(LogFixture.directory).compactMap { fs.contents(of: "\(LogFixture.directory)/\($0)") }
        return kept.allSatisfy { piece in files.contains { $0.count >= piece.count && Array($0.suffix(piece.count)) == piece } }
    }

    @Test func crashAtEveryCallOfPointInTimeRecoveryKeepsTheStoreOpenableAndTheBytes() throws {
        let (disk, prefix, kept) = try Self.damagedStore()
        let seeds = testKnob("STRATA_PIT_CRASH_SEEDS", default: 6)
        let probe = disk.processCrashImage()
        let (engine, clean) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(probe, mode: .pointInTime))
        let calls = probe.callCount
        try engine.close()
        #expect(try PayloadListState.load(clean) == prefix)
        #expect(clean.report.quarantinedFiles.count >= 2, "the fixture must move a later segment aside")
        var images = 0
        for n in 1...calls {
            let fs = disk.processCrashImage()
            fs.crash(atCall: n)
            _ = try? StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, mode: .pointInTime))
            let crashed = fs.processCrashImage()
            for image in [crashed] + (0..<seeds).map({ crashed.powerLossImage(seed: UInt64(n * 1000 + $0)) }) {
                images += 1
                let context = "crash at call \(n) of \(calls) of point-in-time recovery"
                #expect(try Self.keepsEveryByte(image, kept), "\(context): bytes moved aside were lost")
                do {
                    let (reopened, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image, mode: .pointInTime))
                    #expect(try PayloadListState.load(recovered) == prefix, "\(context): wrong state")
                    _ = try reopened.append(kind: 1, payload: [0xEE])
                    try reopened.close()
                    let (_, again) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(image.powerLossImage(seed: UInt64(n))))
                    #expect(try PayloadListState.load(again) == prefix + [[0xEE]], "\(context): append after recovery lost")
                    #expect(try Self.keepsEveryByte(image, kept), "\(context): bytes lost after reopening")
                } catch {
                    Issue.record("\(context): the store opens in no mode: \(error)")
                }
            }
        }
        print("point-in-time crashes: \(calls) crash points, \(images) disk images checked")
    }
}
