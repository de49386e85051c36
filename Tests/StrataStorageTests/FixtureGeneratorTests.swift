import Foundation
import Testing
import StrataStorage

/// Writes the format fixtures into the repository's `Fixtures/` folder. Runs only with
/// `STRATA_WRITE_FIXTURES=1`, and refuses to overwrite a fixture that exists: fixtures of
/// released format versions are never regenerated (see `Fixtures/README.md`).
@Suite struct FixtureGeneratorTests {
    static let enabled = ProcessInfo.processInfo.environment["STRATA_WRITE_FIXTURES"] == "1"

    @Test(.enabled(if: enabled, "set STRATA_WRITE_FIXTURES=1 to write Fixtures/"))
    func writeBasicStore() throws {
        let target = BasicStoreFixture.fixturesRoot().appendingPathComponent(BasicStoreFixture.relativePath)
        guard !FileManager.default.fileExists(atPath: target.path) else {
            Issue.record("\(target.path) exists. Fixtures are written once; delete it by hand only if its format version was never released.")
            return
        }
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        var options = StorageOptions()
        options.segmentSize = BasicStoreFixture.segmentSize
        let (engine, _) = try StorageEngine.open(at: target.path, options: options)
        for lsn in 1...BasicStoreFixture.checkpointLSN {
            try #require(try engine.append(kind: BasicStoreFixture.kind(lsn), payload: BasicStoreFixture.payload(lsn)) == lsn)
        }
        let lsn = try engine.beginCheckpoint()
        try #require(lsn == BasicStoreFixture.checkpointLSN)
        try engine.completeCheckpoint(lsn: lsn, tables: [BasicStoreFixture.table],
                                      metadata: BasicStoreFixture.metadata) { writer in
            for range in BasicStoreFixture.chunkRanges {
                try writer.append(table: 0, columns: BasicStoreFixture.chunk(range))
            }
        }
        for lsn in (BasicStoreFixture.checkpointLSN + 1)...BasicStoreFixture.transactionCount {
            try #require(try engine.append(kind: BasicStoreFixture.kind(lsn), payload: BasicStoreFixture.payload(lsn)) == lsn)
        }
        try engine.close()
        print("wrote \(target.path): \(try FileManager.default.contentsOfDirectory(atPath: target.path).sorted())")
    }

    /// `Fixtures/v3/basic-snapshot`: one snapshot of major version 3 (SnapshotV3Fixture).
    @Test(.enabled(if: enabled, "set STRATA_WRITE_FIXTURES=1 to write Fixtures/"))
    func writeSnapshotV3() throws {
        let target = BasicStoreFixture.fixturesRoot().appendingPathComponent(SnapshotV3Fixture.relativePath)
        guard !FileManager.default.fileExists(atPath: target.path) else {
            Issue.record("\(target.path) exists. Fixtures are written once; delete it by hand only if its format version was never released.")
            return
        }
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try SnapshotV3Fixture.write(PosixFileSystem(), directory: target.path)
        print("wrote \(target.path): \(try FileManager.default.contentsOfDirectory(atPath: target.path).sorted())")
    }
}
