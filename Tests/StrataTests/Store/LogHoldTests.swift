import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// Issue 22: a sidecar replicator's hold on the log (`replication-hold`) is visible to the
/// writer's app (`store.logHold`) and to an operator (`strata verify` warns when it keeps
/// the whole log or lags beyond the limit), so a sidecar that stopped for good does not grow
/// the log unnoticed.
@Suite struct LogHoldTests {
    static func insert(_ store: PersistentStore, _ count: Int) throws {
        _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", objects: (0..<count).map {
            ["name": .string("item \($0)"), "createdAt": .date(Date())]
        }))
    }

    @Test func theHoldCountsTheFramesItKeepsAndVerifyWarnsWhenItKeepsEverything() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PersistentStore.open(at: dir.path, schema: AsyncFixture.schema)
        for _ in 0..<5 { try Self.insert(store, 2) }
        #expect(store.logHold == nil)
        #expect(try StoreInspector.verify(at: dir.path, deep: false).findings.isEmpty)

        let holdFile = dir.appending("replication-hold")
        try Data("3\n".utf8).write(to: URL(fileURLWithPath: holdFile))
        let hold = try #require(store.logHold)
        #expect(hold.heldFromLSN == 3)
        #expect(hold.framesHeld == store.lastLSN - 2)
        #expect(hold.isLagging(beyond: 2))
        #expect(!hold.isLagging())
        // Within the limit: no warning.
        #expect(try StoreInspector.verify(at: dir.path, deep: false).findings.isEmpty)

        // A hold file that does not read as an LSN keeps the whole log: an operator hears of it.
        try Data("not an LSN".utf8).write(to: URL(fileURLWithPath: holdFile))
        #expect(store.logHold?.heldFromLSN == 0)
        let report = try StoreInspector.verify(at: dir.path, deep: false)
        #expect(report.isSound)
        let warning = try #require(report.findings.first)
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("replication-hold"))
        #expect(warning.message.contains("whole log"))
        try store.close()
    }
}
