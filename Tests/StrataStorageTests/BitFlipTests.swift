import Testing
import StrataTestSupport
@testable import StrataStorage

/// Every bit of a 64 KiB log flipped in turn: always detected, never a crash, and damage in
/// the last frame (a torn tail) is told apart from damage in the middle (corruption).
@Suite struct BitFlipTests {
    /// A log of about 64 KiB, each transaction synced on its own (`.always`).
    /// With `encrypted`, the same log encrypted (AES-GCM): the sweeps below run on both.
    static func makeLog(encrypted: Bool = false) throws -> (SimulatedFileSystem, String, [UInt8], [Int]) {
        var rng = SplitMix64(seed: 5)
        var payloads: [[UInt8]] = []
        var total = 0
        while total < 118 * 1024 {
            let size = 200 + Int(rng.next() % 1600)
            let compressible = rng.next() % 2 == 0
            payloads.append((0..<size).map { compressible ? UInt8($0 % 13) : UInt8(truncatingIfNeeded: rng.next()) })
            total += size
        }
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: payloads, cipher: SweepCipher.cipher(encrypted))
        let path = try LogFixture.segmentPaths(fs)[0]
        let bytes = fs.contents(of: path)!
        var starts: [Int] = []
        var offset = SweepCipher.frameStart(encrypted)
        bytes.withUnsafeBytes { raw in
            while case .success(let header) = FrameCodec.decodeHeader(raw, at: offset, end: raw.count) {
                starts.append(offset)
                offset += header.frameLength
            }
        }
        return (fs, path, bytes, starts)
    }

    @Test(arguments: [false, true])
    func everyBitOfEveryFrameIsDetectedAndClassified(encrypted: Bool) throws {
        let (_, path, bytes, starts) = try Self.makeLog(encrypted: encrypted)
        #expect(bytes.count >= 64 * 1024, "log is \(bytes.count) bytes")
        let name = String(path.split(separator: "/").last!)
        var middle = 0, tail = 0
        for frame in starts.indices {
            let start = starts[frame]
            let end = frame + 1 < starts.count ? starts[frame + 1] : bytes.count
            let isLast = frame == starts.count - 1
            for bit in (start * 8)..<(end * 8) {
                var damaged = bytes
                damaged[bit / 8] ^= 1 << UInt8(bit % 8)
                // The frames before `start` are untouched, so the scan resumes at `start`.
                let scan = SegmentScanner.scan(name: name, bytes: damaged, start: start, startLSN: UInt64(frame + 1),
                                               cipher: SweepCipher.cipher(encrypted))
                #expect(scan.records.isEmpty && scan.defect?.offset == start, "bit \(bit) not detected")
                let verdict = SegmentVerdict(scan, isNewest: true, hasAnyFrame: { true })
                if isLast {
                    #expect(verdict == .tornTail(offset: start), "bit \(bit) in the last frame: \(verdict)")
                    tail += 1
                } else {
                    guard case .corrupted(let offset, _) = verdict else {
                        Issue.record("bit \(bit) in frame \(frame) of \(starts.count) taken for a torn tail")
                        continue
                    }
                    #expect(offset == start)
                    middle += 1
                }
            }
        }
        print("log bit flips\(encrypted ? " (encrypted)" : ""): \(middle + tail) (\(middle) in the middle, \(tail) in the tail), all detected")
    }

    /// The same through a full open, for a sample of bits and every header bit: the store
    /// fails with `corrupted` naming the file, offset and last good LSN, or truncates a tail.
    @Test(arguments: [false, true])
    func openReportsMiddleDamageAndChangesNothing(encrypted: Bool) throws {
        let (source, path, bytes, starts) = try Self.makeLog(encrypted: encrypted)
        let stride = testKnob("STRATA_BITFLIP_OPEN_STRIDE", default: 509)
        for bit in Swift.stride(from: 0, to: bytes.count * 8, by: stride) {
            let fs = source.processCrashImage()
            var damaged = bytes
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            fs.setContents(of: path, to: damaged)
            let frame = starts.lastIndex { $0 * 8 <= bit }
            do {
                let (_, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, cipher: SweepCipher.cipher(encrypted)))
                #expect(frame == starts.count - 1, "bit \(bit) in frame \(String(describing: frame)) opened")
                #expect(state.records.count == starts.count - 1 && state.report.tornTail != nil)
            } catch let error as StorageError {
                #expect(error.code == .corrupted, "bit \(bit): \(error)")
                #expect(error.file == path)
                if let frame {
                    #expect(error.offset == Int64(starts[frame]) && error.lastGoodLSN == UInt64(frame))
                }
                #expect(fs.contents(of: path)! == damaged, "a failed open changed the file")
            }
        }
    }
}
