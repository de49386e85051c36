import Foundation
import StrataTestSupport
import StrataStorage

/// The content of `Fixtures/v1/basic-store`, computed from fixed seeds so that the generator
/// (`FixtureGeneratorTests`) and the reader test (`FixtureTests`) agree on every byte of
/// every payload and row. Never change what this returns for a released fixture: add a new
/// fixture instead (see `Fixtures/README.md`).
enum BasicStoreFixture {
    /// The fixture's folder inside `Fixtures/`.
    static let relativePath = "v1/basic-store"
    /// How many transactions the store holds.
    static let transactionCount: UInt64 = 30
    /// The LSN of the checkpoint (the snapshot's state).
    static let checkpointLSN: UInt64 = 20
    /// Segment size used when generating, small so that the log after the checkpoint spans
    /// more than one segment.
    static let segmentSize: Int64 = 4096
    /// Rows per snapshot chunk.
    static let rowsPerChunk = 8
    /// The snapshot's opaque metadata.
    static let metadata = Array("strata basic-store fixture, format 1.0".utf8)

    /// The repository's `Fixtures/` folder, found from this source file's path.
    static func fixturesRoot(file: String = #filePath) -> URL {
        URL(fileURLWithPath: file)
            .deletingLastPathComponent() // StrataStorageTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // the package
            .appendingPathComponent("Fixtures")
    }

    /// The frame kind of transaction `lsn`: 1…5 in turn.
    static func kind(_ lsn: UInt64) -> UInt8 { UInt8((lsn - 1) % 5 + 1) }

    /// The payload of transaction `lsn`: empty, one byte, text, a compressible 4 KiB block,
    /// incompressible blocks (one of 3,000 bytes, to fill a segment), and seeded noise.
    static func payload(_ lsn: UInt64) -> [UInt8] {
        switch lsn {
        case 1, 30: return []
        case 2: return [0x2A]
        case 3, 25: return (0..<4096).map { UInt8(ascii: "a") + UInt8(($0 / 16 + Int(lsn)) % 8) }
        case 4: return Array("Hello, Strata — «format v1» ✓".utf8)
        case 23: return noise(count: 3000, seed: lsn)
        default:
            return noise(count: Int((lsn * 37) % 180), seed: lsn)
        }
    }

    /// `count` seeded, incompressible bytes.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: 0xF1_7E00 + seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// The snapshot's one table: a row per transaction up to the checkpoint.
    static let table = TableDescriptor(name: "Transactions", columns: [
        ColumnDescriptor(name: "key", kind: .int64),
        ColumnDescriptor(name: "even", kind: .bool),
        ColumnDescriptor(name: "score", kind: .double),
        ColumnDescriptor(name: "payload", kind: .bytes),
    ])

    /// The columns of the chunk holding rows for LSNs `lsns`: `key` (never null; negative
    /// then positive, to exercise delta encoding), `even`
    /// (null for multiples of 7), `score` (null for multiples of 5; includes negatives and
    /// a fraction) and `payload` (null for multiples of 6; the empty payload is not null).
    static func chunk(_ lsns: ClosedRange<UInt64>) -> [ColumnChunk] {
        let rows = Array(lsns)
        var payloads = ByteColumn()
        for lsn in rows { payloads.append(lsn % 6 == 0 ? [] : payload(lsn)) }
        return [
            ColumnChunk(values: .int64(rows.map { Int64($0) * 1_000_003 - 7_000_000 })),
            ColumnChunk(values: .bool(rows.map { $0 % 7 != 0 && $0 % 2 == 0 }),
                        validity: rows.map { $0 % 7 != 0 }),
            ColumnChunk(values: .double(rows.map { $0 % 5 == 0 ? 0 : Double($0) / 4 - 2.5 }),
                        validity: rows.map { $0 % 5 != 0 }),
            ColumnChunk(values: .bytes(payloads), validity: rows.map { $0 % 6 != 0 }),
        ]
    }

    /// The LSN ranges of the snapshot's chunks, in order.
    static var chunkRanges: [ClosedRange<UInt64>] {
        stride(from: UInt64(1), through: checkpointLSN, by: rowsPerChunk).map {
            $0...min($0 + UInt64(rowsPerChunk) - 1, checkpointLSN)
        }
    }
}
