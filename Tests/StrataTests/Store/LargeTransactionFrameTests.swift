import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// A large transaction's log frame is prepared on a worker while its version is built
/// (`FramePreparation`): the frame is the one the commit would have made inline, carries its
/// author when the store keeps history, and replays to exactly the rows in memory.
@Suite struct LargeTransactionFrameTests {
    static let schema = try! Schema {
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("createdAt", .date)
            Attribute("done", .bool, default: false)
            Attribute("note", .string, optional: true)
        }
    }

    /// Above and below the worker threshold.
    static let sizes = [FramePreparation.threshold + 5, 10]

    static func fill(_ index: Int, _ row: inout [String: AttributeValue]) {
        row["name"] = .string("item \(index) of a long list")
        row["createdAt"] = .date(Date(timeIntervalSinceReferenceDate: Double(index) * 30))
        if index % 3 == 0 { row["done"] = .bool(true) }
        if index % 7 == 0 { row["note"] = .string("note \(index)") }
    }

    /// Every row as (key, values), in key order.
    static func dump(_ store: PersistentStore) throws -> [[AttributeValue]] {
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            let objects = try context.fetch(FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")]))
            return try objects.map { object in
                try [.int(object.objectID.primaryKey)] + ["name", "createdAt", "done", "note"].map { try object.value(forKey: $0) }
            }
        }
    }

    /// No automatic checkpoint (the frames must stay in the log), history when asked for.
    static func options(history: Bool) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        if history { options.persistentHistory = .untilPurged }
        return options
    }

    /// Closes `store`, reopens it and checks its rows are `before`; returns the log's entries.
    static func reopen(_ store: PersistentStore, at dir: TemporaryDirectory, _ options: PersistentStore.Options,
                       expecting before: [[AttributeValue]]) throws -> [LogEntry] {
        #expect(before.count == sizes.reduce(0, +))
        try store.close()
        let reopened = try PersistentStore.open(at: dir.path, schema: schema, options: options)
        #expect(try dump(reopened) == before)
        try reopened.close()
        return try StoreInspector.open(at: dir.path).log()
    }

    @Test(arguments: [false, true]) func batchInsertReplaysAndNamesItsAuthor(history: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let options = Self.options(history: history)
        let store = try PersistentStore.open(at: dir.path, schema: Self.schema, options: options)
        for (round, size) in Self.sizes.enumerated() {
            var insert = BatchInsertRequest(entityName: "TodoItem", count: size) { Self.fill(round * 100_000 + $0, &$1) }
            insert.transactionAuthor = "import \(round)"
            insert.resultType = .count
            #expect(try store.execute(insert).count == size)
        }
        if history { #expect(try store.history().map(\.author) == ["import 0", "import 1"]) }
        let log = try Self.reopen(store, at: dir, options, expecting: try Self.dump(store)).filter { $0.kind == "batch insert" }
        #expect(log.map(\.author) == (history ? ["import 0", "import 1"] : [nil, nil]))
        #expect(log.map { $0.changes.map(\.inserted) } == Self.sizes.map { [$0] })
    }

    @Test(arguments: [false, true]) func contextSaveReplaysAndNamesItsAuthor(history: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let options = Self.options(history: history)
        let store = try PersistentStore.open(at: dir.path, schema: Self.schema, options: options)
        let context = ObjectContext(store: store, name: "loader")
        for (round, size) in Self.sizes.enumerated() {
            try context.performAndWait {
                for index in 0..<size {
                    var row: [String: AttributeValue] = [:]
                    Self.fill(round * 100_000 + index, &row)
                    let object = try context.insert("TodoItem")
                    for (key, value) in row { try object.setValue(value, forKey: key) }
                }
                try context.save()
            }
        }
        let log = try Self.reopen(store, at: dir, options, expecting: try Self.dump(store)).filter { $0.kind == "save" }
        #expect(log.map(\.author) == (history ? ["loader", "loader"] : [nil, nil]))
        #expect(log.map { $0.changes.map(\.inserted) } == Self.sizes.map { [$0] })
    }

    @Test func aFrameFromTheWorkerIsTheInlineFrame() throws {
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 / 7) }
        let inline = try PreparedFrame(kind: .batchInsert, author: "a", authored: true, payload: payload)
        let worker = try FramePreparation { try PreparedFrame(kind: .batchInsert, author: "a", authored: true, payload: payload) }.frame()
        #expect(worker.kind == inline.kind)
        #expect(worker.kind == TransactionKind.batchInsert.rawValue | AuthoredPayload.flag)
        var a: [UInt8] = [], b: [UInt8] = []
        FrameCodec.seal(inline.payload, kind: inline.kind, lsn: 9, timestamp: 1, syncedLSN: 8, salt: 3, into: &a)
        FrameCodec.seal(worker.payload, kind: worker.kind, lsn: 9, timestamp: 1, syncedLSN: 8, salt: 3, into: &b)
        #expect(a == b)
    }

    @Test func anErrorOnTheWorkerReachesTheCommit() {
        struct Refused: Error {}
        let preparation = FramePreparation { throw Refused() }
        #expect(throws: Refused.self) { try preparation.frame() }
    }
}
