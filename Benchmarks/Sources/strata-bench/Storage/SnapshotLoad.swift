import Foundation
import StrataStorage

/// Issue 2: loading a snapshot — reading, verifying (CRC32C), decompressing (LZ4) and
/// decoding every chunk with `SnapshotReader.readChunk` — in GB/s of decompressed chunk
/// data, on one thread and on two. The snapshot holds the N to-do items in the store's own
/// layout (primary key, row version, name, createdAt, done) in chunks of 1,024 rows; it is
/// written once per process and copied into each run, so it is read from the page cache.
/// Target: ≥ 1 GB/s.
enum SnapshotLoad {
    static let rowsPerChunk = 1_024

    static let oneThread = StorageBenchmark(
        name: "snapshot-load",
        summary: "read + verify + decode every chunk of an N-row to-do snapshot, one thread: GB/s decompressed",
        unit: .bytesPerSecond, target: .atLeast(1e9), limit: .lz4Decompress,
        measure: { try await measure($0, threads: 1) })

    static let twoThreads = StorageBenchmark(
        name: "snapshot-load-2-threads",
        summary: "the same with the chunks shared out between 2 threads",
        unit: .bytesPerSecond, target: .atLeast(1e9), limit: .lz4Decompress,
        measure: { try await measure($0, threads: 2) })

    /// The store's column layout for the to-do entity (see `EntityLayout` in Strata).
    static let table = TableDescriptor(name: "TodoItem", columns: [
        ColumnDescriptor(name: "$pk", kind: .int64),
        ColumnDescriptor(name: "$version", kind: .int64),
        ColumnDescriptor(name: "name", kind: .bytes),
        ColumnDescriptor(name: "createdAt", kind: .double),
        ColumnDescriptor(name: "done", kind: .bool),
    ])

    static func measure(_ run: RunContext, threads: Int) async throws -> Double {
        let items = run.dataset.todoItems
        let directory = try await run.fixtures.copy(
            "storage-snapshot", to: run.directory.appendingPathComponent("engine")
        ) { directory in
            try writeSnapshot(of: items, in: directory.path)
        }.path
        guard let name = try FileManager.default.contentsOfDirectory(atPath: directory)
            .first(where: { $0.hasPrefix("snapshot-") && $0.hasSuffix(".snap") }) else {
            throw StorageError(.notAStore, "no snapshot in \(directory)")
        }
        let reader = try SnapshotReader(fileSystem: PosixFileSystem(), directory: directory, name: name)
        let decompressed = reader.chunks.reduce(0) { $0 + $1.rawLength }
        let count = reader.chunks.count
        let start = Stopwatch.now
        let rows = try onThreads(threads) { worker in
            var rows = 0
            for index in stride(from: worker, to: count, by: threads) {
                let columns = try reader.readChunk(index)
                rows += columns[0].count
            }
            return rows
        }
        let seconds = Stopwatch.seconds(since: start)
        precondition(rows.reduce(0, +) == items.count, "expected \(items.count) rows")
        if threads == 1 {
            log("snapshot: \(grouped(count)) chunks, \(fixed(Double(decompressed) / 1e6, digits: 1)) MB "
                + "decompressed in \(fixed(Double(reader.fileSize) / 1e6, digits: 1)) MB on disk")
        }
        return Double(decompressed) / seconds
    }

    /// Writes a snapshot of `items` with the engine's own checkpoint (one log record first,
    /// so the snapshot covers LSN 1) and closes the engine.
    static func writeSnapshot(of items: [TodoItem], in directory: String) throws {
        let (engine, _) = try StorageEngine.open(at: directory)
        _ = try engine.append(kind: StorageFixtures.kind, payload: Array("benchmark".utf8))
        let lsn = try engine.beginCheckpoint()
        try engine.completeCheckpoint(lsn: lsn, tables: [table], metadata: Array("benchmark".utf8)) { writer in
            var start = items.startIndex
            while start < items.endIndex {
                let end = min(start + rowsPerChunk, items.endIndex)
                try writer.append(table: 0, columns: columns(items[start..<end], version: Int64(lsn)))
                start = end
            }
        }
        try engine.close()
    }

    /// One chunk's columns, as the store would hold them.
    static func columns(_ items: ArraySlice<TodoItem>, version: Int64) -> [ColumnChunk] {
        var names = ByteColumn()
        for item in items { names.append(item.name.utf8) }
        return [
            ColumnChunk(values: .int64(items.map(\.id))),
            ColumnChunk(values: .int64(Array(repeating: version, count: items.count))),
            ColumnChunk(values: .bytes(names)),
            ColumnChunk(values: .double(items.map { $0.createdAt.timeIntervalSinceReferenceDate })),
            ColumnChunk(values: .bool(items.map(\.done))),
        ]
    }
}
