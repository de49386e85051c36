import Testing
import StrataTestSupport
@testable import StrataStorage

/// A log of 64 transactions of varied sizes, cut at every byte offset: each open recovers
/// exactly the whole transactions before the cut, reports the truncation, and accepts new
/// appends afterwards.
@Suite struct TornTailTests {
    @Test(arguments: [false, true])
    func everyCutRecoversTheWholeTransactionsBeforeIt(encrypted: Bool) throws {
        let payloads = LogFixture.variedPayloads(count: 64, seed: 11)
        let source = SimulatedFileSystem()
        let cipher = SweepCipher.cipher(encrypted), first = SweepCipher.frameStart(encrypted)
        try LogFixture.writeLog(source, payloads: payloads, cipher: cipher)
        let segment = try LogFixture.segmentPaths(source)
        #expect(segment.count == 1)
        let bytes = source.contents(of: segment[0])!
        // Frame boundaries, to know how many whole transactions precede each cut.
        var ends: [Int] = []
        var offset = first
        bytes.withUnsafeBytes { raw in
            while case .success(let header) = FrameCodec.decodeHeader(raw, at: offset, end: raw.count) {
                offset += header.frameLength
                ends.append(offset)
            }
        }
        #expect(ends.count == 64 && ends.last == bytes.count)
        let step = testKnob("STRATA_TORN_TAIL_STEP", default: 1)
        var cuts = 0
        for cut in stride(from: first, through: bytes.count, by: step) {
            let fs = source.processCrashImage()
            fs.setContents(of: segment[0], to: Array(bytes[0..<cut]))
            try LogFixture.forgetSyncs(fs)
            let (engine, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, cipher: cipher))
            let whole = ends.prefix { $0 <= cut }.count
            #expect(state.records.map(\.payload) == Array(payloads.prefix(whole)), "cut at \(cut)")
            let isBoundary = cut == first || ends.contains(cut)
            #expect((state.report.tornTail != nil) == !isBoundary, "cut at \(cut)")
            if let torn = state.report.tornTail {
                #expect(torn.lastGoodLSN == UInt64(whole) && torn.bytesDiscarded == Int64(cut - (whole == 0 ? first : ends[whole - 1])))
            }
            // New appends land after the last whole transaction and survive a reopen.
            #expect(try engine.append(kind: 9, payload: [7, 7]) == UInt64(whole + 1))
            try engine.close()
            let (_, again) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, cipher: cipher))
            #expect(again.records.count == whole + 1 && again.records.last?.payload == [7, 7])
            #expect(again.report.tornTail == nil)
            cuts += 1
        }
        print("torn tail\(encrypted ? " (encrypted)" : ""): \(cuts) cuts of a \(bytes.count)-byte log")
    }

    @Test func zeroFilledTailIsTruncated() throws {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: [[1], [2, 2], [3, 3, 3]])
        let path = try LogFixture.segmentPaths(fs)[0]
        let bytes = fs.contents(of: path)!
        fs.setContents(of: path, to: bytes + [UInt8](repeating: 0, count: 4096))
        let (_, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(state.records.map(\.payload) == [[1], [2, 2], [3, 3, 3]])
        #expect(state.report.tornTail?.bytesDiscarded == 4096)
        #expect(fs.contents(of: path)! == bytes)
    }

    @Test func readOnlyOpenReportsButDoesNotTruncate() throws {
        let fs = SimulatedFileSystem()
        try LogFixture.writeLog(fs, payloads: [[1], [2, 2]])
        let path = try LogFixture.segmentPaths(fs)[0]
        let bytes = fs.contents(of: path)!
        let torn = Array(bytes.dropLast(1))
        fs.setContents(of: path, to: torn)
        try LogFixture.forgetSyncs(fs)
        let (engine, state) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs, readOnly: true))
        #expect(state.records.map(\.payload) == [[1]])
        #expect(state.report.tornTail != nil)
        #expect(fs.contents(of: path)! == torn)
        #expect(throws: StorageError.self) { _ = try engine.append(kind: 1, payload: []) }
    }
}
