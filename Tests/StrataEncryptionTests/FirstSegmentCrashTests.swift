import Crypto
import Testing
import StrataEncryption
import StrataTestSupport
@testable import StrataStorage

/// An encrypted store opened on a recovered tail creates its new log segment at the first
/// write, not at open. Interrupted at every file-system call of "open, save three times,
/// close", the disk after a process crash and after a power loss must open, hold every save
/// that returned (and no hole), take a new save, and never hold two different frames sealed
/// under one LSN (the GCM nonce) and one file key: across the crash, a frame under a given
/// segment salt and LSN is the one the crashed process wrote, byte for byte.
///
/// Knob: `STRATA_FIRST_SEGMENT_POWER_SEEDS` (power-loss images per crash point, default 8).
@Suite struct FirstSegmentCrashTests {
    static let directory = "/store"
    static let cipher = AESGCMStoreCipher(key: SymmetricKey(data: [UInt8](repeating: 0x3C, count: 32)))

    /// The transactions already in the store's tail before the interrupted open.
    static let prepared: [[UInt8]] = [[1], [UInt8](repeating: 2, count: 300), [3, 3, 3]]
    /// The saves of the interrupted run: small, large and incompressible, small.
    static let saves: [[UInt8]] = {
        var rng = SplitMix64(seed: 23)
        return [[4, 4], (0..<5000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, [UInt8](repeating: 6, count: 90)]
    }()

    static func options(_ fs: SimulatedFileSystem, readOnly: Bool = false) -> StorageOptions {
        var options = StorageOptions()
        options.fileSystem = fs
        options.cipher = cipher
        options.readOnly = readOnly
        return options
    }

    /// A closed encrypted store whose log ends in a segment holding `payloads`; `emptyTail`
    /// adds a checkpoint after them, so that the tail is an empty segment the first write
    /// must replace.
    static func prepare(emptyTail: Bool) throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: directory, options: options(fs))
        for payload in prepared { _ = try engine.append(kind: 1, payload: payload) }
        if emptyTail {
            let lsn = try engine.beginCheckpoint()
            try engine.completeCheckpoint(lsn: lsn, tables: [], metadata: Array("prepared".utf8)) { _ in }
        }
        try engine.close()
        return fs
    }

    /// One sealed frame: the 16-byte salt of its segment's file key, and its LSN.
    struct Seal: Hashable {
        var salt: [UInt8]
        var lsn: UInt64
    }

    /// Every whole frame in every log segment on `fs`, by its file key's salt and LSN.
    static func sealedFrames(_ fs: SimulatedFileSystem) throws -> [Seal: [UInt8]] {
        var frames: [Seal: [UInt8]] = [:]
        for name in try fs.contentsOfDirectory(directory) where StoreFileNames.segmentLSN(name) != nil {
            let bytes = fs.contents(of: "\(directory)/\(name)") ?? []
            guard case .success(let header) = SegmentHeader.decode(bytes), let encryption = header.encryption else { continue }
            var offset = header.frameStart
            while offset < bytes.count {
                let decoded = bytes.withUnsafeBytes { FrameCodec.decodeHeader($0, at: offset, end: bytes.count) }
                guard case .success(let frame) = decoded else { break }
                let seal = Seal(salt: encryption.salt, lsn: frame.lsn)
                let sealed = Array(bytes[offset..<offset + frame.frameLength])
                if let earlier = frames[seal], earlier != sealed {
                    Issue.record("\(name): LSN \(frame.lsn) sealed twice under one file key")
                }
                frames[seal] = sealed
                offset += frame.frameLength
            }
        }
        return frames
    }

    /// Checks one disk left by the interrupted run: `acknowledged` saves returned before the
    /// crash; `sealed` are the frames the crashed process had written.
    static func check(_ image: SimulatedFileSystem, acknowledged: Int, sealed: [Seal: [UInt8]], context: String) {
        let all = prepared + saves
        do {
            let before = try files(image)
            let (_, readOnly) = try StorageEngine.open(at: directory, options: options(image, readOnly: true))
            #expect(try files(image) == before, "\(context): a read-only open changed the store")
            let (engine, state) = try StorageEngine.open(at: directory, options: options(image))
            let recovered = state.records.map(\.payload)
            let base = Int(state.snapshot?.lsn ?? 0)
            #expect(readOnly.records.map(\.payload) == recovered, "\(context): read-only and writable opens disagree")
            #expect(Array(all[base..<min(all.count, base + recovered.count)]) == recovered,
                    "\(context): the recovered log is not a prefix of the saves")
            #expect(base + recovered.count >= prepared.count + acknowledged,
                    "\(context): a save that returned was lost (\(base + recovered.count) of \(prepared.count + acknowledged) transactions)")
            let lsn = try engine.append(kind: 1, payload: [0xEE])
            #expect(lsn == UInt64(base + recovered.count + 1), "\(context): the next save took LSN \(lsn)")
            try engine.close()
            let (_, again) = try StorageEngine.open(at: directory, options: options(image, readOnly: true))
            #expect(again.records.map(\.payload) == recovered + [[0xEE]], "\(context): the save after recovery is not there")
            for (seal, bytes) in try sealedFrames(image) where sealed[seal].map({ $0 != bytes }) ?? false {
                Issue.record("\(context): LSN \(seal.lsn) was sealed again, with other bytes, under the file key of the crashed run")
            }
        } catch {
            Issue.record("\(context): \(error)")
        }
    }

    static func files(_ image: SimulatedFileSystem) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try image.contentsOfDirectory(directory) { files[name] = image.contents(of: "\(directory)/\(name)") ?? [] }
        return files
    }

    /// Opens, saves every one of ``saves``, closes; returns how many saves returned.
    static func run(_ fs: SimulatedFileSystem) -> Int {
        var acknowledged = 0
        guard let (engine, _) = try? StorageEngine.open(at: directory, options: options(fs)) else { return 0 }
        for payload in saves {
            guard (try? engine.append(kind: 1, payload: payload)) != nil else { break }
            acknowledged += 1
        }
        try? engine.close()
        return acknowledged
    }

    @Test(arguments: [false, true])
    func savesAfterAnOpenSurviveACrashAtEveryCallAndNoNonceRepeats(emptyTail: Bool) throws {
        let seeds = testKnob("STRATA_FIRST_SEGMENT_POWER_SEEDS", default: 8)
        let clean = try Self.prepare(emptyTail: emptyTail)
        let start = clean.callCount
        #expect(Self.run(clean) == Self.saves.count)
        let calls = clean.callCount - start
        Self.check(clean.processCrashImage(), acknowledged: Self.saves.count, sealed: try Self.sealedFrames(clean),
                   context: "completed")
        for point in 1...(calls + 1) {
            let fs = try Self.prepare(emptyTail: emptyTail)
            #expect(fs.callCount == start, "the preparation is not deterministic")
            fs.crash(atCall: start + point)
            let acknowledged = Self.run(fs)
            let sealed = try Self.sealedFrames(fs.processCrashImage())
            let context = "tail \(emptyTail ? "empty" : "with frames"), crash at call \(point) of \(calls)"
            Self.check(fs.processCrashImage(), acknowledged: acknowledged, sealed: sealed, context: context + " (process crash)")
            for seed in 0..<UInt64(seeds) {
                Self.check(fs.powerLossImage(seed: seed &+ UInt64(point) &* 977), acknowledged: acknowledged, sealed: sealed,
                           context: context + " (power loss, seed \(seed))")
            }
        }
        print("first segment at the first write (tail \(emptyTail ? "empty" : "with frames")): \(calls) calls; \(seeds) power-loss images per point")
    }
}
