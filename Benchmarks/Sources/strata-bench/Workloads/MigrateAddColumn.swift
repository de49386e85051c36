import Foundation
import GRDB
import Strata

/// Issue 18: open the N-item to-do store with a schema that adds an attribute with a default
/// (a lightweight migration, one log record) and count the items, against SQLite opening the
/// file, `ALTER TABLE … ADD COLUMN … DEFAULT` and counting; and the same open + migrate
/// against a plain open of the same store (target: within 1.5×). The first's target is 1.5 ×
/// the plain open's (≤ 100 ms, issue 3); SQLite's figure is beside it for comparison.
enum MigrateAddColumn {
    /// The to-do schema with one more attribute, `priority`, defaulting to 0.
    static let evolvedSchema: Schema = try! Schema {
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("createdAt", .date)
            Attribute("done", .bool)
            Attribute("priority", .int16, default: 0)
        }
    }

    static let workload = Workload(
        name: "migrate-add-column", group: "migrate", item: 18,
        summary: "open the N-item store with an added attribute (default 0), migrating it, and count | open + ALTER TABLE ADD COLUMN DEFAULT 0 + COUNT(*)",
        unit: .seconds, target: .atMost(0.150),
        strata: strata, sqlite: .measured(sqlite))

    static let overPlainOpen = StorageBenchmark(
        name: "migrate-vs-open",
        summary: "open + lightweight migration (add an attribute with a default) of the N-item store ÷ a plain open of it",
        unit: .ratio, target: .atMost(1.5), limit: nil, measure: measureOverPlainOpen)

    /// Copies the to-do store (not timed), then times opening it with ``evolvedSchema`` and
    /// counting. Returns seconds.
    static func strata(_ run: RunContext) async throws -> Double {
        let directory = try await StrataFixtures.todoStore(for: run).path
        return try openAndMigrate(directory, scale: run.scale)
    }

    static func openAndMigrate(_ directory: String, scale: Int) throws -> Double {
        let (store, seconds) = try Stopwatch.time {
            let store = try PersistentStore.open(at: directory, schema: evolvedSchema, options: StrataFixtures.options)
            let count = StrataFixtures.todoCount(store)
            precondition(count == scale, "expected \(scale) items, found \(count)")
            return store
        }
        precondition(store.schema == evolvedSchema, "the store was not migrated")
        try store.close()
        return seconds
    }

    /// Copies the to-do database (not timed), then times opening it, adding the column and
    /// counting. Returns seconds.
    static func sqlite(_ run: RunContext) async throws -> Double {
        let path = try await SQLiteFixtures.todoDatabase(for: run)
        let (queue, seconds) = try Stopwatch.time {
            let queue = try SQLiteDatabase.openQueue(at: path)
            try queue.write { db in
                try db.execute(sql: "ALTER TABLE \(TodoItem.databaseTableName) ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
            }
            let count = try queue.read(TodoItem.fetchCount)
            precondition(count == run.scale, "expected \(run.scale) rows, found \(count)")
            return queue
        }
        try queue.close()
        return seconds
    }

    /// A plain open of one copy of the store, then open + migrate of another: the ratio.
    static func measureOverPlainOpen(_ run: RunContext) async throws -> Double {
        let plain = try await OpenAndCount.strata(run)
        let copy = try await run.fixtures.copy("strata-todo", to: run.directory.appendingPathComponent("strata-migrate")) { _ in
            preconditionFailure("the to-do store is built by the plain open above")
        }
        let migrating = try openAndMigrate(copy.path, scale: run.scale)
        return migrating / plain
    }
}
