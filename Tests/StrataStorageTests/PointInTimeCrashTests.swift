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

extension PointInTimeCrashTests {
    /// A torn tail with whole frames after the damage (unsynced writes that landed out of
    /// order) is cut only after the bytes from the damage on are copied aside durably: a crash
    /// at any call of that recovery, then a power loss, keeps them somewhere.
    @Test func crashWhileCuttingATornTailKeepsTheCopiedBytes() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, durability: .never))
        var rng = SplitMix64(seed: 23)
        for _ in 0..<12 { _ = try engine.append(kind: 1, payload: (0..<250).map { _ in UInt8(truncatingIfNeeded: rng.next() % 5) }) }
        // The process dies without syncing; the frames are in the page cache, unsynced.
        let disk = fs.processCrashImage()
        let path = try #require(try LogFixture.segmentPaths(disk).first)
        var bytes = try #require(disk.contents(of: path))
        var offset = SegmentHeader.size
        for _ in 0..<5 {
            bytes.withUnsafeBytes { raw in
                if case .success(let h) = FrameCodec.decodeHeader(raw, at: offset, end: raw.count) { offset += h.frameLength }
            }
        }
        bytes[offset + 70] ^= 0x01   // frame 6 lands damaged; frames 7…12 after it are whole
        disk.setContents(of: path, to: bytes)
        let kept = [Array(bytes[offset...])]
        let probe = disk.processCrashImage()
        let (clean, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(probe))
        let calls = probe.callCount
        try clean.close()
        #expect(recovered.records.count == 5 && recovered.report.tornTail != nil)
        #expect(recovered.report.quarantinedFiles.count == 1, "the fixture must make recovery copy the cut bytes")
        for n in 1...calls {
            let attempt = disk.processCrashImage()
            attempt.crash(atCall: n)
            _ = try? StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(attempt))
            let crashed = attempt.processCrashImage()
            for seed in 0..<6 {
                let image = crashed.powerLossImage(seed: UInt64(n * 100 + seed))
                #expect(try Self.keepsEveryByte(image, kept), "crash at call \(n) of \(calls), power loss \(seed): the cut bytes are gone")
            }
        }
    }
}
