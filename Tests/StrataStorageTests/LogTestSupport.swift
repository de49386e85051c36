import Testing
#if canImport(StrataEncryption)
import Crypto
import StrataEncryption
#endif
import StrataTestSupport
@testable import StrataStorage

/// Helpers for log tests on the simulated file system.
enum LogFixture {
    static let directory = "/store"

    static func options(_ fs: SimulatedFileSystem, durability: Durability = .always,
                        segmentSize: Int64 = 64 << 20, mode: RecoveryMode = .strict,
                        readOnly: Bool = false, cipher: (any StoreCipher)? = nil) -> StorageOptions {
        var options = StorageOptions()
        options.cipher = cipher
        options.fileSystem = fs
        options.durability = durability
        options.segmentSize = segmentSize
        options.recoveryMode = mode
        options.readOnly = readOnly
        return options
    }

    /// The varied transaction sizes the issue asks for: empty, 1 byte, ~4 KiB, and one
    /// 64 KiB incompressible payload among small ones.
    static func variedPayloads(count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            switch i % 8 {
            case 0: return []
            case 1: return [UInt8(truncatingIfNeeded: i)]
            case 5: return (0..<(4000 + Int(rng.next() % 200))).map { UInt8(($0 / 7 + i) % 251) }
            default:
                if i == count / 2 { return (0..<65_536).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
                return (0..<Int(rng.next() % 300)).map { _ in UInt8(truncatingIfNeeded: rng.next() % 16) }
            }
        }
    }

    /// Opens, appends every payload (kind = index % 5 + 1), and closes.
    static func writeLog(_ fs: SimulatedFileSystem, payloads: [[UInt8]], segmentSize: Int64 = 64 << 20,
                         cipher: (any StoreCipher)? = nil) throws {
        let (engine, _) = try StorageEngine.open(at: directory, options: options(fs, segmentSize: segmentSize, cipher: cipher))
        for (i, payload) in payloads.enumerated() {
            _ = try engine.append(kind: UInt8(i % 5 + 1), payload: payload)
        }
        try engine.close()
    }

    /// Forgets what the durable-LSN marker records, as if the frames a test is about to cut
    /// had never been synced. A real torn write only hits frames that were never synced, which
    /// the marker never covers; a test that cuts a synced log to play a torn write must say so,
    /// or recovery rightly calls the cut damage to durable data.
    static func forgetSyncs(_ fs: SimulatedFileSystem) throws {
        try fs.remove("\(directory)/\(DurableMarker.fileName)")
        try fs.syncDirectory(directory)
    }

    static func segmentPaths(_ fs: SimulatedFileSystem) throws -> [String] {
        try fs.contentsOfDirectory(directory).filter { StoreFileNames.segmentLSN($0) != nil }.map { "\(directory)/\($0)" }
    }
}

/// The cipher of the encrypted runs of the recovery sweeps: AES-256-GCM under a fixed key
/// (`nil` for the plain runs), and where frames start in its segments.
enum SweepCipher {
    static func cipher(_ encrypted: Bool) -> (any StoreCipher)? {
        guard encrypted else { return nil }
        #if canImport(StrataEncryption)
        return AESGCMStoreCipher(key: SymmetricKey(data: [UInt8](repeating: 0x5A, count: 32)))
        #else
        // The sanitizer's build (scripts/tsan, STRATA_WITHOUT_ENCRYPTION=1) has no cipher: an
        // encrypted sweep must not pass there as a plain one.
        fatalError("This build leaves out StrataEncryption (STRATA_WITHOUT_ENCRYPTION=1); run the encrypted sweeps in the plain build (scripts/test).")
        #endif
    }

    /// The offset of a segment's first frame.
    static func frameStart(_ encrypted: Bool) -> Int {
        SegmentHeader.size + (encrypted ? EncryptionHeader.size : 0)
    }
}
