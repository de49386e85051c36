import Testing
import StrataTestSupport
@testable import StrataStorage

/// A "state" for checkpoint tests: the list of every payload committed so far, stored in a
/// snapshot as one bytes column, so that recovered state = snapshot rows + replayed log.
enum PayloadListState {
    static let table = TableDescriptor(name: "Payloads", columns: [.init(name: "bytes", kind: .bytes)])

    static func checkpoint(_ engine: StorageEngine, state: [[UInt8]], rowsPerChunk: Int = 7) throws {
        let lsn = try engine.beginCheckpoint()
        precondition(lsn == UInt64(state.count))
        try engine.completeCheckpoint(lsn: lsn, tables: [table], metadata: Array("meta".utf8)) { writer in
            for start in stride(from: 0, to: state.count, by: rowsPerChunk) {
                var column = ByteColumn()
                for payload in state[start..<min(start + rowsPerChunk, state.count)] { column.append(payload) }
                try writer.append(table: 0, columns: [ColumnChunk(values: .bytes(column))])
            }
        }
    }

    /// Opens a store with `options`, and twice appends `payloadsEach` payloads and takes a
    /// checkpoint; closes it and returns the state.
    static func twoCheckpoints(_ options: StorageOptions, payloadsEach: Int) throws -> [[UInt8]] {
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: options)
        var state: [[UInt8]] = []
        for round in 0..<2 {
            for i in 0..<payloadsEach {
                let payload = [UInt8(round), UInt8(i)]
                _ = try engine.append(kind: 1, payload: payload)
                state.append(payload)
            }
            try checkpoint(engine, state: state)
        }
        try engine.close()
        return state
    }

    static func load(_ recovered: RecoveredState) throws -> [[UInt8]] {
        var state: [[UInt8]] = []
        if let snapshot = recovered.snapshot {
            for index in snapshot.chunks.indices {
                guard case .bytes(let column) = try snapshot.readChunk(index)[0].values else { continue }
                for row in 0..<column.count { state.append(Array(column[row])) }
            }
        }
        return state + recovered.records.map(\.payload)
    }
}

@Suite struct CheckpointTests {
    @Test func checkpointTrimsTheLogAndReopensIdentically() throws {
        let fs = SimulatedFileSystem()
        let options = LogFixture.options(fs, segmentSize: 2048)
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: options)
        var state: [[UInt8]] = []
        for i in 0..<60 {
            let payload = (0..<(i * 3)).map { UInt8(truncatingIfNeeded: $0 ^ i) }
            _ = try engine.append(kind: 1, payload: payload)
            state.append(payload)
        }
        try PayloadListState.checkpoint(engine, state: state)
        let names = try fs.contentsOfDirectory(LogFixture.directory)
        #expect(names.filter { $0.hasSuffix(".log") } == [StoreFileNames.segment(firstLSN: 61)])
        #expect(names.contains(StoreFileNames.snapshot(lsn: 60)))
        for i in 0..<5 {
            _ = try engine.append(kind: 1, payload: [UInt8(i)])
            state.append([UInt8(i)])
        }
        try engine.close()
        let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: options)
        #expect(recovered.snapshot?.lsn == 60 && recovered.snapshot?.metadata == Array("meta".utf8))
        #expect(recovered.records.map(\.lsn) == Array(61...65))
        #expect(try PayloadListState.load(recovered) == state)
    }

    @Test func damagedNewestSnapshotFallsBackToTheOlderOne() throws {
        let fs = SimulatedFileSystem()
        var options = LogFixture.options(fs)
        options.snapshotsRetained = 2
        let state = try PayloadListState.twoCheckpoints(options, payloadsEach: 10)
        let newest = "\(LogFixture.directory)/\(StoreFileNames.snapshot(lsn: 20))"
        var bytes = fs.contents(of: newest)!
        bytes[60] ^= 0x10
        fs.setContents(of: newest, to: bytes)
        let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: options)
        #expect(recovered.snapshot?.lsn == 10)
        #expect(recovered.report.unusableSnapshots.keys.contains(StoreFileNames.snapshot(lsn: 20)))
        #expect(try PayloadListState.load(recovered) == state)
    }

    @Test func damagedOnlySnapshotWithoutOlderLogIsAClearError() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        for i in 0..<5 { _ = try engine.append(kind: 1, payload: [UInt8(i)]) }
        try PayloadListState.checkpoint(engine, state: (0..<5).map { [UInt8($0)] })
        try engine.close()
        let path = "\(LogFixture.directory)/\(StoreFileNames.snapshot(lsn: 5))"
        var bytes = fs.contents(of: path)!
        bytes[bytes.count - 30] ^= 1
        fs.setContents(of: path, to: bytes)
        let error = #expect(throws: StorageError.self) {
            _ = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        }
        #expect(error?.code == .corrupted && error?.file == path)
    }

    @Test func commitsContinueWhileTheSnapshotIsWritten() throws {
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        var state: [[UInt8]] = (0..<20).map { [UInt8($0)] }
        for payload in state { _ = try engine.append(kind: 1, payload: payload) }
        let lsn = try engine.beginCheckpoint()
        // Commits go on between the rotation and the snapshot's completion.
        for i in 20..<30 { _ = try engine.append(kind: 1, payload: [UInt8(i)]); }
        try engine.completeCheckpoint(lsn: lsn, tables: [PayloadListState.table], metadata: []) { writer in
            var column = ByteColumn()
            for payload in state { column.append(payload) }
            try writer.append(table: 0, columns: [ColumnChunk(values: .bytes(column))])
        }
        state += (20..<30).map { [UInt8($0)] }
        try engine.close()
        let (_, recovered) = try StorageEngine.open(at: LogFixture.directory, options: LogFixture.options(fs))
        #expect(try PayloadListState.load(recovered) == state)
    }
}
