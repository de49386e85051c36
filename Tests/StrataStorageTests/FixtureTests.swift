import Foundation
import Testing
import StrataTestSupport
@testable import StrataStorage

/// Opens the checked-in format 1.0 store `Fixtures/v1/basic-store` (read-only and writable,
/// on a copy) and checks every byte that reaches the layer above: the snapshot's header,
/// tables, chunk directory, statistics and rows, and every replayed record. The layout
/// values below are literals read from the fixture files; the payloads and rows come from
/// ``BasicStoreFixture``, the same code that generated them. Any change to the format, to
/// the decoders or to the fixture makes this test fail.
@Suite struct FixtureTests {
    /// Size and CRC-32C of every fixture file: the fixture is never regenerated.
    static let files: [String: FixtureFingerprint] = [
        "last-recovery.json": FixtureFingerprint(215, 0x4CFC_756F),
        "lock": FixtureFingerprint(0, 0),
        "snapshot-00000000000000000020.snap": FixtureFingerprint(1982, 0x63FB_F4E7),
        "wal-00000000000000000021.log": FixtureFingerprint(4119, 0xDCDB_40AA),
        "wal-00000000000000000029.log": FixtureFingerprint(301, 0x9949_D039),
    ]

    /// One replayed record's place on disk and commit time, for LSNs 21…30.
    struct RecordLayout {
        var segment: String
        var offset: Int64
        var bytesOnDisk: Int
        var timestamp: Int64
    }

    static let first = "wal-00000000000000000021.log", second = "wal-00000000000000000029.log"
    static let records: [RecordLayout] = [
        RecordLayout(segment: first, offset: 32, bytesOnDisk: 105, timestamp: 1_795_318_528_305_309),
        RecordLayout(segment: first, offset: 137, bytesOnDisk: 142, timestamp: 1_795_318_528_305_570),
        RecordLayout(segment: first, offset: 279, bytesOnDisk: 3048, timestamp: 1_795_318_528_306_964),
        RecordLayout(segment: first, offset: 3327, bytesOnDisk: 216, timestamp: 1_795_318_528_307_298),
        // LSN 25: the compressible 4 KiB payload, stored as an 87-byte LZ4 block.
        RecordLayout(segment: first, offset: 3543, bytesOnDisk: 135, timestamp: 1_795_318_528_309_297),
        RecordLayout(segment: first, offset: 3678, bytesOnDisk: 110, timestamp: 1_795_318_528_309_538),
        RecordLayout(segment: first, offset: 3788, bytesOnDisk: 147, timestamp: 1_795_318_528_309_754),
        RecordLayout(segment: first, offset: 3935, bytesOnDisk: 184, timestamp: 1_795_318_528_310_017),
        RecordLayout(segment: second, offset: 32, bytesOnDisk: 221, timestamp: 1_795_318_528_311_082),
        // LSN 30: the empty payload, a bare 48-byte header.
        RecordLayout(segment: second, offset: 253, bytesOnDisk: 48, timestamp: 1_795_318_528_311_273),
    ]

    /// The snapshot's chunk directory.
    static let chunks: [SnapshotChunkInfo] = [
        SnapshotChunkInfo(table: 0, offset: 40, length: 457, rowCount: 8, rawLength: 4532, statistics: [
            ColumnStatistics(nullCount: 0, range: .int(min: -5_999_997, max: 1_000_024)),
            ColumnStatistics(nullCount: 1, range: .int(min: 0, max: 1)),
            ColumnStatistics(nullCount: 1, range: .double(min: -2.25, max: -0.5)),
            ColumnStatistics(nullCount: 1, range: nil),
        ]),
        SnapshotChunkInfo(table: 0, offset: 497, length: 696, rowCount: 8, rawLength: 756, statistics: [
            ColumnStatistics(nullCount: 0, range: .int(min: 2_000_027, max: 9_000_048)),
            ColumnStatistics(nullCount: 1, range: .int(min: 0, max: 1)),
            ColumnStatistics(nullCount: 2, range: .double(min: -0.25, max: 1.5)),
            ColumnStatistics(nullCount: 1, range: nil),
        ]),
        SnapshotChunkInfo(table: 0, offset: 1193, length: 380, rowCount: 4, rawLength: 392, statistics: [
            ColumnStatistics(nullCount: 0, range: .int(min: 10_000_051, max: 13_000_060)),
            ColumnStatistics(nullCount: 0, range: .int(min: 0, max: 1)),
            ColumnStatistics(nullCount: 1, range: .double(min: 1.75, max: 2.25)),
            ColumnStatistics(nullCount: 1, range: nil),
        ]),
    ]

    /// A copy of the fixture in a temporary directory (tests never touch the original).
    static func copyOfFixture() throws -> (TemporaryDirectory, String) {
        let source = BasicStoreFixture.fixturesRoot().appendingPathComponent(BasicStoreFixture.relativePath).path
        try #require(FileManager.default.fileExists(atPath: source), "fixture missing at \(source)")
        let temporary = try TemporaryDirectory(prefix: "strata-fixture")
        let store = temporary.appending("basic-store")
        try FileManager.default.copyItem(atPath: source, toPath: store)
        return (temporary, store)
    }

    @Test func fixtureFilesAreUnchanged() throws {
        let directory = BasicStoreFixture.fixturesRoot().appendingPathComponent(BasicStoreFixture.relativePath).path
        #expect(try FixtureFingerprint.of(directory: directory) == Self.files)
    }

    @Test func readOnlyOpenRecoversEveryValue() throws {
        let (temporary, store) = try Self.copyOfFixture()
        defer { temporary.remove() }
        var options = StorageOptions()
        options.readOnly = true
        let (engine, state) = try StorageEngine.open(at: store, options: options)
        try Self.verify(state)
        #expect(engine.lastLSN == 30)
        try engine.close()
    }

    @Test func writableOpenRecoversEveryValueAndAppendsAfterIt() throws {
        let (temporary, store) = try Self.copyOfFixture()
        defer { temporary.remove() }
        let (engine, state) = try StorageEngine.open(at: store)
        try Self.verify(state)
        #expect(state.report.removedFiles.isEmpty && state.report.quarantinedFiles.isEmpty)
        #expect(try engine.append(kind: 9, payload: [1, 2, 3]) == 31)
        try engine.close()
        // Appends continue in the newest segment, after its last frame.
        let (_, again) = try StorageEngine.open(at: store)
        #expect(again.records.map(\.lsn) == Array(21...31))
        #expect(again.records.last?.segment == Self.second && again.records.last?.offset == 301)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).filter { $0.hasSuffix(".log") }.sorted() == [Self.first, Self.second])
    }

    /// Checks everything a recovery of the fixture must yield.
    static func verify(_ state: RecoveredState) throws {
        let report = state.report
        #expect(report.snapshotFile == "snapshot-00000000000000000020.snap" && report.snapshotLSN == 20)
        #expect(report.lastLSN == 30 && report.replayedTransactions == 10)
        #expect(!report.hadDamage && report.tornTail == nil && report.corruption == nil)

        let snapshot = try #require(state.snapshot)
        #expect(snapshot.lsn == 20 && snapshot.createdAt == 1_795_318_528_299_453)
        #expect(snapshot.formatVersion == (major: 1, minor: 0))
        #expect(snapshot.fileSize == 1982)
        #expect(snapshot.metadata == Array("strata basic-store fixture, format 1.0".utf8))
        #expect(snapshot.tables == [TableDescriptor(name: "Transactions", columns: [
            ColumnDescriptor(name: "key", kind: .int64),
            ColumnDescriptor(name: "even", kind: .bool),
            ColumnDescriptor(name: "score", kind: .double),
            ColumnDescriptor(name: "payload", kind: .bytes),
        ])])
        #expect(snapshot.chunks == chunks)
        try snapshot.verifyChecksums()
        for (index, range) in BasicStoreFixture.chunkRanges.enumerated() {
            #expect(try snapshot.readChunk(index) == BasicStoreFixture.chunk(range), "chunk \(index)")
        }
        // A few rows spelled out, independently of BasicStoreFixture.chunk.
        let head = try snapshot.readChunk(0)
        #expect(head[0].values == .int64([-5_999_997, -4_999_994, -3_999_991, -2_999_988, -1_999_985, -999_982, 21, 1_000_024]))
        #expect(head[1].validity == [true, true, true, true, true, true, false, true])
        #expect(head[2].values == .double([-2.25, -2, -1.75, -1.5, 0, -1, -0.75, -0.5]))
        guard case .bytes(let payloads) = head[3].values else { Issue.record("payload column is not bytes"); return }
        #expect(payloads.offsets == [0, 0, 1, 4097, 4132, 4137, 4137, 4216, 4332])
        #expect(Array(payloads[3]) == Array("Hello, Strata — «format v1» ✓".utf8))

        #expect(state.records.map(\.lsn) == Array(21...30))
        for (record, layout) in zip(state.records, records) {
            #expect(record.kind == UInt8((record.lsn - 1) % 5 + 1), "LSN \(record.lsn)")
            #expect(record.payload == BasicStoreFixture.payload(record.lsn), "LSN \(record.lsn)")
            #expect(record.segment == layout.segment && record.offset == layout.offset, "LSN \(record.lsn)")
            #expect(record.bytesOnDisk == layout.bytesOnDisk && record.timestamp == layout.timestamp, "LSN \(record.lsn)")
        }
        #expect(state.records.map(\.payload.count) == [57, 94, 3000, 168, 4096, 62, 99, 136, 173, 0])
    }
}
