import Foundation
import StrataTestSupport
@testable import StrataStorage

/// The content of `Fixtures/v3/basic-snapshot`: one snapshot of major version 3 (a block
/// per column, bit-packed integers; `docs/FORMAT.md` 5.4, 5.5, 7.1), computed from fixed
/// seeds so that the generator (`FixtureGeneratorTests.writeSnapshotV3`) and the reader test
/// (`SnapshotV3FixtureTests`) agree on every row. Never change what this returns: the fixture
/// is checked in once (`Fixtures/README.md`).
enum SnapshotV3Fixture {
    /// The fixture's folder inside `Fixtures/`.
    static let relativePath = "v3/basic-snapshot"
    /// The snapshot's LSN, and so its file name.
    static let lsn: UInt64 = 20
    static let name = "snapshot-00000000000000000020.snap"
    /// When it was written (µs since the epoch), fixed so that its bytes do not depend on
    /// the clock.
    static let createdAt: Int64 = 1_796_000_000_000_000
    static let metadata = Array("strata basic-snapshot fixture, snapshot format 3.0".utf8)

    /// Basic-store's table (`BasicStoreFixture.table`, its keys step by 1,000,003: packed
    /// deltas of 0 bits), then a table of numbers for every integer encoding.
    static let tables = [BasicStoreFixture.table, numbers]

    /// `n`: 0, 1, 2… (packed deltas, 0 bits); `age`: seeded in 0..<1000 (packed, 10 bits);
    /// `wide`: seeded over all 64 bits (delta, 8 bytes); `constant`: 42 (packed, 0 bits);
    /// `maybe`: seeded in 0..<16, null for multiples of 3 (a validity bitmap, packed);
    /// `label`: a short repetitive string (a compressed block).
    static let numbers = TableDescriptor(name: "Numbers", columns: [
        ColumnDescriptor(name: "n", kind: .int64),
        ColumnDescriptor(name: "age", kind: .int64),
        ColumnDescriptor(name: "wide", kind: .int64),
        ColumnDescriptor(name: "constant", kind: .int64),
        ColumnDescriptor(name: "maybe", kind: .int64),
        ColumnDescriptor(name: "label", kind: .bytes),
    ])

    /// The chunks in file order: (table number, columns).
    static func chunks() -> [(table: Int, columns: [ColumnChunk])] {
        BasicStoreFixture.chunkRanges.map { (0, BasicStoreFixture.chunk($0)) }
            + [(1, numberRows(0..<600)), (1, numberRows(600..<1_000))]
    }

    static func numberRows(_ rows: Range<Int>) -> [ColumnChunk] {
        var random = SplitMix64(seed: 0x5EED_0003 &+ UInt64(rows.lowerBound))
        var ages: [Int64] = [], wide: [Int64] = [], maybe: [Int64] = []
        var labels = ByteColumn()
        for row in rows {
            ages.append(Int64(random.next() % 1_000))
            wide.append(Int64(bitPattern: random.next()))
            maybe.append(row % 3 == 0 ? 0 : Int64(random.next() % 16))
            labels.append(Array("label \(row % 10)".utf8))
        }
        return [
            ColumnChunk(values: .int64(rows.map { Int64($0) })),
            ColumnChunk(values: .int64(ages)),
            ColumnChunk(values: .int64(wide)),
            ColumnChunk(values: .int64([Int64](repeating: 42, count: rows.count))),
            ColumnChunk(values: .int64(maybe), validity: rows.map { $0 % 3 != 0 }),
            ColumnChunk(values: .bytes(labels)),
        ]
    }

    /// Writes the snapshot into `directory` of `fileSystem`.
    static func write(_ fileSystem: any FileSystem, directory: String) throws {
        let writer = try SnapshotWriter(fileSystem: fileSystem, directory: directory, lsn: lsn, tables: tables,
                                        metadata: metadata, createdAt: createdAt)
        for (table, columns) in chunks() { try writer.append(table: table, columns: columns) }
        try writer.finish()
    }
}
