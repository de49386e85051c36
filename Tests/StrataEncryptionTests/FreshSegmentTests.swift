import Crypto
import Testing
import StrataEncryption
import StrataTestSupport
@testable import StrataStorage

/// An encrypted log never seals two different frames with the same LSN (its GCM nonce) under
/// one file key: recovery may cut a torn frame whose LSN the next save takes again, so every
/// open seals with a fresh salt, and its first write starts a new segment instead of
/// appending to the recovered tail. An open that does not write adds no file.
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

    /// Every open that writes starts a new generation (a new salt); an open that does not
    /// write adds nothing. An empty newest segment (a checkpoint's) is replaced by the first
    /// write under a new salt, not piled up.
    @Test func everyGenerationThatWritesHasANewSaltAndAnEmptyTailIsReplaced() throws {
        let fs = SimulatedFileSystem()
        var salts: Set<[UInt8]> = []
        for round in 1...3 {
            let (engine, state) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
            #expect(state.records.count == round - 1)
            _ = try engine.append(kind: 1, payload: [UInt8(round)])
            salts.insert(Self.salt(fs, try Self.segments(fs).last!))
            try engine.close()
        }
        #expect(salts.count == 3)
        #expect(try Self.segments(fs).count == 3)
        let (engine, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        let lsn = try engine.beginCheckpoint()
        try engine.completeCheckpoint(lsn: lsn, tables: [], metadata: []) { _ in }
        try engine.close()
        let empty = try Self.segments(fs)
        #expect(empty == [StoreFileNames.segment(firstLSN: 4)])
        let emptySalt = Self.salt(fs, empty[0])
        salts.insert(emptySalt)
        // Opened without writing: the empty newest segment stays as it is.
        for _ in 0..<2 {
            let (engine, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
            try engine.close()
            #expect(try Self.segments(fs) == empty)
            #expect(Self.salt(fs, empty[0]) == emptySalt)
        }
        let (writer, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        #expect(try writer.append(kind: 1, payload: [4]) == 4)
        try writer.close()
        #expect(try Self.segments(fs) == empty)
        salts.insert(Self.salt(fs, empty[0]))
        #expect(salts.count == 5)
        #expect(!(try fs.contentsOfDirectory(Self.directory)).contains { $0.hasSuffix(".tmp") })
        let (_, state) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        #expect(state.snapshot?.lsn == 3)
        #expect(state.records.map(\.payload) == [[4]])
    }

    /// A closed store of each kind holding the same transactions, in one segment.
    static func twoStores() throws -> (plain: SimulatedFileSystem, encrypted: SimulatedFileSystem) {
        let plain = SimulatedFileSystem(), encrypted = SimulatedFileSystem()
        var plainOptions = Self.options(plain)
        plainOptions.cipher = nil
        for options in [plainOptions, Self.options(encrypted)] {
            let (engine, _) = try StorageEngine.open(at: Self.directory, options: options)
            for payload in [[1], [2, 2], [UInt8](repeating: 3, count: 500)] as [[UInt8]] {
                _ = try engine.append(kind: 1, payload: payload)
            }
            try engine.close()
        }
        return (plain, encrypted)
    }

    static func files(_ fs: SimulatedFileSystem) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try fs.contentsOfDirectory(directory) { files[name] = fs.contents(of: "\(directory)/\(name)") ?? [] }
        return files
    }

    /// An encrypted writable open with no write makes exactly a plain open's file-system
    /// calls (no new segment, no extra sync or rename) and leaves every log segment as it was;
    /// a read-only open changes nothing at all.
    @Test func anOpenWithoutAWriteAddsNoFileAndMakesAPlainOpensCalls() throws {
        let (plain, encrypted) = try Self.twoStores()
        var plainOptions = Self.options(plain)
        plainOptions.cipher = nil
        var traces: [[String]] = []
        for (fs, options) in [(plain, plainOptions), (encrypted, Self.options(encrypted))] {
            let before = try Self.files(fs)
            var readOnly = options
            readOnly.readOnly = true
            let (reader, _) = try StorageEngine.open(at: Self.directory, options: readOnly)
            try reader.close()
            #expect(try Self.files(fs) == before, "a read-only open changed the store")
            fs.startTracing()
            let (engine, state) = try StorageEngine.open(at: Self.directory, options: options)
            try engine.close()
            traces.append(fs.trace)
            #expect(state.records.count == 3)
            let after = try Self.files(fs)
            #expect(Set(after.keys) == Set(before.keys), "files added or removed: \(Set(after.keys).symmetricDifference(before.keys))")
            for (name, bytes) in before where StoreFileNames.segmentLSN(name) != nil {
                #expect(after[name] == bytes, "\(name) changed")
            }
        }
        #expect(traces[0] == traces[1])
        #expect(traces[1].filter { $0.hasPrefix("sync") }.count == traces[0].filter { $0.hasPrefix("sync") }.count)
    }

    /// The durable-LSN marker speaks for the recovered tail until the first write, and for
    /// the new segment after it: a bit flip in the last synced frame is reported as damage
    /// in both, never cut as a torn write.
    @Test(arguments: [false, true])
    func aFlipInTheLastSyncedFrameIsCorruption(afterAWrite: Bool) throws {
        let (_, fs) = try Self.twoStores()
        let (engine, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        if afterAWrite { _ = try engine.append(kind: 1, payload: [UInt8](repeating: 4, count: 200)) }
        try engine.close()
        let newest = try #require(try Self.segments(fs).last)
        #expect(newest == StoreFileNames.segment(firstLSN: afterAWrite ? 4 : 1))
        let path = "\(Self.directory)/\(newest)"
        var bytes = try #require(fs.contents(of: path))
        bytes[bytes.count - 20] ^= 0x08
        fs.setContents(of: path, to: bytes)
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        }
        #expect(error?.code == .corrupted && error?.file == path)
        #expect(fs.contents(of: path) == bytes, "a failed open changed the log")
    }

    /// A checkpoint or a key rotation right after an open, before any write, starts the
    /// segment that follows the snapshot; every transaction is there afterwards.
    @Test(arguments: [false, true])
    func aCheckpointOrKeyRotationBeforeTheFirstWrite(rotateKey: Bool) throws {
        let (_, fs) = try Self.twoStores()
        let (engine, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        var options = Self.options(fs)
        if rotateKey {
            options.cipher = AESGCMStoreCipher(key: SymmetricKey(data: [UInt8](repeating: 9, count: 32)))
            try engine.rotateKey(to: options.cipher, tables: [], metadata: []) { _ in }
        } else {
            let lsn = try engine.beginCheckpoint()
            try engine.completeCheckpoint(lsn: lsn, tables: [], metadata: []) { _ in }
        }
        #expect(try Self.segments(fs) == [StoreFileNames.segment(firstLSN: 4)])
        #expect(try engine.append(kind: 1, payload: [4]) == 4)
        try engine.close()
        let (_, state) = try StorageEngine.open(at: Self.directory, options: options)
        #expect(state.snapshot?.lsn == 3)
        #expect(state.records.map(\.payload) == [[4]])
    }

    /// A follower that read the header of an empty tail (a checkpoint's) before the writer's
    /// first write replaced it under a new salt follows on into the replacement, instead of
    /// waiting for frames under the old salt forever.
    @Test func aFollowerReadsOnWhenTheFirstWriteReplacesAnEmptyTail() throws {
        let fs = SimulatedFileSystem()
        let (first, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        _ = try first.append(kind: 1, payload: [1])
        let lsn = try first.beginCheckpoint()
        try first.completeCheckpoint(lsn: lsn, tables: [], metadata: []) { _ in }
        try first.close()
        let empty = try Self.segments(fs)
        #expect(empty == [StoreFileNames.segment(firstLSN: 2)])
        let emptySalt = Self.salt(fs, empty[0])

        let (writer, _) = try StorageEngine.open(at: Self.directory, options: Self.options(fs))
        var follower = LogFollower(fileSystem: fs, directory: Self.directory, lastLSN: writer.lastLSN,
                                   cipher: Self.options(fs).cipher)
        #expect(try follower.poll().records.isEmpty)   // it has read the empty tail's header
        #expect(try writer.append(kind: 1, payload: [2]) == 2)
        #expect(try Self.segments(fs) == empty)
        #expect(Self.salt(fs, empty[0]) != emptySalt, "the first write did not replace the empty tail")
        let poll = try follower.poll()
        #expect(poll.records.map(\.payload) == [[2]])
        #expect(!poll.needsReopen)
        try writer.close()
    }
}
