import Testing
import StrataTestSupport
@testable import StrataStorage

/// The footer decodes every chunk's statistics into one shared array; each chunk's list must
/// still be its own columns' statistics, numbered from 0, whatever tables come before it.
@Suite struct SnapshotFooterStatisticsTests {
    static let narrow = TableDescriptor(name: "Tag", columns: [
        .init(name: "pk", kind: .int64), .init(name: "weight", kind: .double),
    ])

    /// A chunk of `Tag`: keys from `firstKey`, weights with a null now and then.
    static func narrowChunk(rows: Int, firstKey: Int64, seed: UInt64) -> [ColumnChunk] {
        var rng = SplitMix64(seed: seed)
        let validity = (0..<rows).map { _ in rng.next() % 5 != 0 }
        return [
            ColumnChunk(values: .int64((0..<Int64(rows)).map { firstKey + $0 })),
            ColumnChunk(values: .double((0..<rows).map { _ in Double(rng.next() % 1000) / 3 }), validity: validity),
        ]
    }

    @Test func eachChunkReadsItsOwnStatisticsAcrossTablesOfDifferentWidths() throws {
        for seed in UInt64(1)...20 {
            var rng = SplitMix64(seed: seed)
            let fs = SimulatedFileSystem()
            try fs.createDirectory("/s")
            let writer = try SnapshotWriter(fileSystem: fs, directory: "/s", lsn: 5,
                                            tables: [SnapshotCodecTests.table, Self.narrow], metadata: [], createdAt: 0)
            // Chunks of the two tables (4 and 2 columns) in a random order, as a checkpoint of
            // a store with two entities writes them.
            var written: [(table: Int, columns: [ColumnChunk])] = []
            for i in 0..<Int(3 + rng.next() % 6) {
                let rows = Int(1 + rng.next() % 50)
                let table = Int(rng.next() % 2)
                let columns = table == 0
                    ? SnapshotCodecTests.chunk(rows: rows, seed: seed &* 31 &+ UInt64(i), nulls: rng.next() % 2 == 0)
                    : Self.narrowChunk(rows: rows, firstKey: Int64(i) * 1000, seed: seed &+ UInt64(i))
                try writer.append(table: table, columns: columns)
                written.append((table, columns))
            }
            try writer.finish()
            let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: writer.finalName)
            #expect(reader.chunks.count == written.count, "seed \(seed)")
            for (index, chunk) in written.enumerated() {
                let statistics = reader.chunks[index].statistics
                #expect(reader.chunks[index].table == chunk.table, "seed \(seed), chunk \(index)")
                #expect(statistics.count == chunk.columns.count, "seed \(seed), chunk \(index)")
                #expect(statistics.indices == 0..<chunk.columns.count, "seed \(seed), chunk \(index)")
                for column in chunk.columns.indices {
                    #expect(statistics[column] == ColumnStatistics(of: chunk.columns[column]), "seed \(seed), chunk \(index), column \(column)")
                }
            }
        }
    }

    @Test func listsCompareByTheirStatisticsNotByTheirStorage() {
        let a = ColumnStatistics(nullCount: 1, range: .int(min: 2, max: 3))
        let b = ColumnStatistics(nullCount: 0, range: nil)
        let shared = ColumnStatisticsList(storage: [b, a, b, b], start: 1, count: 2)
        let own: ColumnStatisticsList = [a, b]
        #expect(shared == own)
        #expect(shared.hashValue == own.hashValue)
        #expect(Array(shared) == [a, b])
        #expect(shared != [a, b, b])
    }
}
