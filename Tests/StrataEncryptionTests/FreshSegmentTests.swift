import Crypto
import Testing
import StrataEncryption
import StrataTestSupport
@testable import StrataStorage

/// An encrypted log never seals two different frames with the same LSN (its GCM nonce) under
/// one file key: recovery may cut a torn frame whose LSN the next save takes again, so every
/// open starts a new segment with a fresh salt instead of appending to the recovered tail.
@Suite struct FreshSegmentTests {
    static let directory = "/store"

    static func options(_ fs: SimulatedFileSystem) -> StorageOptions {
        var options = StorageOptions()
        options.fileSystem = fs
        options.cipher = AESGCMStoreCipher(key: SymmetricKey(data: [UInt8](repeating: 7, count: 32)))
        return options
    }

    static func segments(_ fs: SimulatedFileSystem) throws -> [String] {
        try fs.contentsOfDirectory(directory).filter { StoreFileNames.segmentLSN($0) != nil }.sorted()
    }

    /// The segment's 128-bit salt (after the 32-byte segment header).
    static func salt(_ fs: SimulatedFileSystem, _ name: String) -> [UInt8] {
        Array(fs.contents(of: "\(directory)/\(name)")![SegmentHeader.size..<SegmentHeader.size + EncryptionHeader.saltLength])
    }

    @Test func theLSNOfACutTornFrameIsSealedAgainUnderANewSalt() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        for payload in [[1, 1], [2, 2, 2], [UInt8](repeating: 3, count: 40)] as [[UInt8]] {
            _ = try engine.append(kind: 1, payload: payload)
        }
        try engine.close()
        let torn = try Self.segments(fs)
        #expect(torn.count == 1)
        let path = "\(Self.directory)/\(torn[0])"
        let bytes = fs.contents(of: path)!
        // Cut the third frame in half, as a crash mid-write would, and forget its sync.
        var starts: [Int] = []
        var offset = SegmentHeader.size + EncryptionHeader.size
        bytes.withUnsafeBytes { raw in
            while case .success(let header) = FrameCodec.decodeHeader(raw, at: offset, end: raw.count) {
                starts.append(offset)
                offset += header.frameLength
            }
        }
        #expect(starts.count == 3)
        fs.setContents(of: path, to: Array(bytes[..<(starts[2] + 30)]))
        try fs.remove("\(Self.directory)/\(DurableMarker.fileName)")

        let (reopened, state) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        #expect(state.records.map(\.payload) == [[1, 1], [2, 2, 2]])
        #expect(state.report.tornTail?.lastGoodLSN == 2)
        #expect(try reopened.append(kind: 1, payload: [9]) == 3)
        try reopened.close()

        // LSN 3 now lives in a new segment, under a salt of its own: the cut frame's nonce
        // was never reused under the old file key.
        let after = try Self.segments(fs)
        #expect(after == [torn[0], StoreFileNames.segment(firstLSN: 3)])
        #expect(fs.contents(of: path)!.count == starts[2], "the torn segment was appended to")
        if after.count == 2 { #expect(Self.salt(fs, after[0]) != Self.salt(fs, after[1])) }
        let (_, again) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        #expect(again.records.map(\.payload) == [[1, 1], [2, 2, 2], [9]])
    }

    @Test func everyOpenStartsANewGenerationAndAnEmptyTailIsReplaced() throws {
        let fs = SimulatedFileSystem()
        var salts: Set<[UInt8]> = []
        for round in 1...3 {
            let (engine, state) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
            #expect(state.records.count == round - 1)
            let names = try Self.segments(fs)
            salts.insert(Self.salt(fs, names.last!))
            _ = try engine.append(kind: 1, payload: [UInt8(round)])
            try engine.close()
        }
        // Opened without writing: the empty newest segment is replaced, not piled up.
        for _ in 0..<2 {
            let (engine, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
            salts.insert(Self.salt(fs, try Self.segments(fs).last!))
            try engine.close()
        }
        #expect(salts.count == 5)
        #expect(try Self.segments(fs).count == 4)
        #expect(!(try fs.contentsOfDirectory(Self.directory)).contains { $0.hasSuffix(".tmp") })
        let (_, state) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        #expect(state.records.map(\.payload) == [[1], [2], [3]])
    }
}
