import Crypto
import Foundation
import Testing
import Strata
import StrataEncryption
@testable import StrataStorage
import StrataTestSupport

/// docs/FORMAT.md 14.7: encrypted segments and snapshots are written with major version 2, so
/// that a build from before encryption (which reads major 1 and ignores the flag bits) refuses
/// them with `unsupportedFormat` instead of taking a new store's only segment for a torn write
/// and cutting it. Plain segments stay 1.0, and encrypted files of major 1 (written before the
/// bump) still open. Snapshots, plain or encrypted, are major 3 since their chunks hold a block
/// per column (section 7.1).
@Suite struct EncryptedFormatVersionTests {
    /// The major version in each segment's and snapshot's header (bytes 8–9 of both).
    static func majors(_ path: String) throws -> [String: UInt16] {
        try EncryptedStoreTests.files(path).filter {
            StoreFileNames.segmentLSN($0.key) != nil || StoreFileNames.snapshotLSN($0.key) != nil
        }.mapValues { UInt16($0[8]) | UInt16($0[9]) << 8 }
    }

    /// Segments: encrypted ones major 2, plain ones 1. Snapshots: major 3 either way
    /// (section 7.1: one block per column and bit-packed integers), which every reader from
    /// before it refuses as a newer format.
    @Test func encryptedSegmentsAreMajorTwoPlainOnesOneAndSnapshotsThree() throws {
        let encrypted = try TemporaryDirectory(prefix: "strata-crypt")
        defer { encrypted.remove() }
        let plain = try TemporaryDirectory(prefix: "strata-plain")
        defer { plain.remove() }
        let key = SymmetricKey(size: .bits256)
        try EncryptedStoreTests.fill(encrypted.path, key: key)
        try EncryptedStoreTests.fill(plain.path, key: nil)
        for (majors, segmentMajor) in [(try Self.majors(encrypted.path), FormatVersion.encryptedMajor),
                                       (try Self.majors(plain.path), FormatVersion.major)] {
            let snapshots = majors.filter { StoreFileNames.snapshotLSN($0.key) != nil }
            let segments = majors.filter { StoreFileNames.segmentLSN($0.key) != nil }
            #expect(!snapshots.isEmpty && !segments.isEmpty, "\(majors)")
            #expect(snapshots.values.allSatisfy { $0 == 3 && $0 == FormatVersion.snapshotMajor }, "\(snapshots)")
            #expect(segments.values.allSatisfy { $0 == segmentMajor }, "\(segments)")
        }
    }

    /// Encrypted log segments that an earlier build wrote with major 1 (before the bump) open
    /// as before. (A snapshot's header is authenticated with its footer, so one cannot be
    /// rewritten here; its reader applies the same version rule.)
    @Test func encryptedSegmentsOfMajorOneStillOpen() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        let key = SymmetricKey(size: .bits256)
        // Three writing opens, three segments (an open that writes nothing adds none).
        for round in 0..<3 {
            let store = try PersistentStore.open(at: directory.path, schema: EncryptedStoreTests.schema,
                                                 options: EncryptedStoreTests.options(key))
            _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: (0..<20).map {
                ["title": .string("note \(round).\($0)")]
            }))
            try store.close()
        }
        let expected = try EncryptedStoreTests.titles(directory.path, key: key)
        #expect(expected.count == 60)
        for (name, var bytes) in try EncryptedStoreTests.files(directory.path) where StoreFileNames.segmentLSN(name) != nil {
            bytes[8] = 1
            bytes[9] = 0
            let crc = CRC32C.checksum(Array(bytes[0..<28]))
            for i in 0..<4 { bytes[28 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
            try Data(bytes).write(to: URL(fileURLWithPath: "\(directory.path)/\(name)"))
        }
        let majors = try Self.majors(directory.path)
        #expect(majors.count >= 3)
        #expect(majors.values.allSatisfy { $0 == 1 })
        #expect(try EncryptedStoreTests.titles(directory.path, key: key) == expected)
    }
}
