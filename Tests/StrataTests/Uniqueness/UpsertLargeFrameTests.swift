import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// An upsert large enough that its log frame is prepared on a worker (`FramePreparation`)
/// logs what it applied: after a reopen the rows are the ones that were in memory, and the
/// record carries the author, the inserts and the updates.
@Suite struct UpsertLargeFrameTests {
    static let schema = try! Schema {
        Entity("Person", uniquenessConstraints: [["email"]]) {
            Attribute("email", .string)
            Attribute("name", .string, optional: true)
            Attribute("n", .int64, default: 0)
        }
    }

    /// Every row as (key, email, name, n), in key order.
    static func dump(_ store: PersistentStore) throws -> [[AttributeValue]] {
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            try context.fetch(FetchRequest(entityName: "Person")).map { object in
                try [.int(object.objectID.primaryKey)] + ["email", "name", "n"].map { try object.value(forKey: $0) }
            }.sorted { $0[0].int64Value < $1[0].int64Value }
        }
    }

    @Test(arguments: [false, true]) func aLargeUpsertReplaysAndNamesItsAuthor(history: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        if history { options.persistentHistory = .untilPurged }
        let store = try PersistentStore.open(at: dir.path, schema: Self.schema, options: options)
        let stored = FramePreparation.threshold
        _ = try store.execute(BatchInsertRequest(entityName: "Person", count: stored) { i, row in
            row["email"] = .string("p\(i)@x")
            row["name"] = .string("stored \(i)")
        })
        // Even rows update stored people (some twice, merged in order), odd rows are new; every
        // third row leaves `name` as it is (an update sets only the keys a row gives).
        let rows = FramePreparation.threshold + 5
        var upsert = BatchInsertRequest(entityName: "Person", count: rows) { i, row in
            row["email"] = .string(i % 2 == 0 ? "p\(i % (stored / 2) * 2)@x" : "new\(i)@x")
            row["n"] = .int(Int64(i))
            if i % 3 != 0 { row["name"] = .string("upserted \(i)") }
        }
        upsert.mode = .upsert
        upsert.transactionAuthor = "import"
        upsert.resultType = .count
        let updated = Set((0..<rows).filter { $0 % 2 == 0 }.map { $0 % (stored / 2) }).count
        #expect(try store.execute(upsert).count == rows / 2 + updated)
        let before = try Self.dump(store)
        #expect(before.count == stored + rows / 2)
        try store.close()
        let reopened = try PersistentStore.open(at: dir.path, schema: Self.schema, options: options)
        #expect(try Self.dump(reopened) == before)
        try reopened.close()
        let log = try StoreInspector.open(at: dir.path).log().filter { $0.kind == "batch insert" }
        #expect(log.count == 2)
        #expect(log.last?.author == (history ? "import" : nil))
        #expect(log.last?.changes.map(\.inserted) == [rows / 2])
        #expect(log.last?.changes.map(\.updated) == [updated])
    }
}
