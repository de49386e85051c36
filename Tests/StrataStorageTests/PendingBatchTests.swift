import Testing
import StrataTestSupport
@testable import StrataStorage

/// The log's pending batch writes large payloads from their own buffers: the bytes on disk
/// must be exactly those of sealing every frame into one byte array.
@Suite struct PendingBatchTests {
    static func payload(_ count: Int, _ rng: inout SplitMix64, compressible: Bool) -> [UInt8] {
        (0..<count).map { compressible ? UInt8($0 / 97 % 251) : UInt8(truncatingIfNeeded: rng.next()) }
    }

    @Test func sealedHeaderMatchesSeal() throws {
        var rng = SplitMix64(seed: 7)
        for count in [0, 1, 63, 64, 1000, PendingBatch.largePayload, 200_000] {
            for compressible in [false, true] {
                let prepared = try FrameCodec.prepare(Self.payload(count, &rng, compressible: compressible))
                var whole: [UInt8] = []
                FrameCodec.seal(prepared, kind: 3, lsn: 41, timestamp: 99, syncedLSN: 40, salt: 0xABCD, into: &whole)
                let header = FrameCodec.sealedHeader(prepared, kind: 3, lsn: 41, timestamp: 99, syncedLSN: 40, salt: 0xABCD)
                #expect(header + prepared.stored == whole, "count \(count), compressible \(compressible)")
            }
        }
    }

    /// A random mix of small and large frames: the pieces, back to back, are the frames.
    @Test func piecesConcatenateToTheFrames() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        for _ in 0..<20 {
            var batch = PendingBatch()
            var expected: [UInt8] = []
            for lsn in 1...UInt64(rng.next() % 8 + 1) {
                let sizes = [0, 10, 300, PendingBatch.largePayload - 1, PendingBatch.largePayload, 150_000]
                let size = sizes[Int(rng.next() % UInt64(sizes.count))]
                let prepared = try FrameCodec.prepare(Self.payload(size, &rng, compressible: rng.next() % 2 == 0))
                FrameCodec.seal(prepared, kind: 2, lsn: lsn, timestamp: 5, syncedLSN: lsn - 1, salt: 9, into: &batch)
                FrameCodec.seal(prepared, kind: 2, lsn: lsn, timestamp: 5, syncedLSN: lsn - 1, salt: 9, into: &expected)
            }
            #expect(batch.allPieces.flatMap { $0 } == expected, "seed \(seed)")
            #expect(batch.count == expected.count && !batch.isEmpty, "seed \(seed)")
            #expect(batch.allPieces.allSatisfy { !$0.isEmpty }, "seed \(seed)")
        }
        #expect(PendingBatch().isEmpty && PendingBatch().allPieces.isEmpty)
    }

    /// Large incompressible transactions through the engine come back intact after reopening.
    @Test func largeTransactionsRoundTrip() throws {
        var rng = SplitMix64(seed: 11)
        let fs = SimulatedFileSystem()
        let payloads = [Self.payload(70_000, &rng, compressible: false), Self.payload(5, &rng, compressible: false),
                        Self.payload(PendingBatch.largePayload, &rng, compressible: false),
                        Self.payload(300_000, &rng, compressible: true), Self.payload(1 << 20, &rng, compressible: false)]
        try LogFixture.writeLog(fs, payloads: payloads)
        let (engine, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(recovered.records.map(\.payload) == payloads)
        #expect(recovered.report.tornTail == nil)
        try engine.close()
    }
}
