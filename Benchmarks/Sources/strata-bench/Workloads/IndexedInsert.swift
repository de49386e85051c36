import Foundation
import GRDB
import Strata

/// Issue 20: "insert 1M with two indexes", on both sides with the indexes `createdAt` and
/// `name`.
///
/// Strata builds an index on its first use, not at every commit (PERFORMANCE.md, "Issue 20,
/// index performance"), while SQLite maintains both B-trees row by row. So that neither side
/// ends its time with less done, each side's time ends with one query through each index:
/// the first item by `createdAt` and the items named like the first one. On Strata
/// `buildIndexes()` builds the two indexes before those fetches (which would otherwise scan
/// while the indexes are built in the background); on SQLite they are two index probes.
enum IndexedInsert {
    static let workload = Workload(
        name: "indexed-insert", group: "indexed", item: 20,
        summary: "batch insert N items into a store indexed on createdAt and name, then one fetch through each index | GRDB records, the same two indexes and queries",
        unit: .seconds, target: .ratioAtMost(0.5), strata: strata, sqlite: .measured(sqliteRecords),
        best: SQLiteBest(.measured(sqliteBest), how: "CREATE INDEX todo_createdAt ON todo(createdAt); CREATE INDEX todo_name ON todo(name); "
                         + "one prepared \(ContextInsert.bestSQL), one transaction; SELECT id FROM todo ORDER BY createdAt LIMIT 1; SELECT id FROM todo WHERE name = ?"))

    /// The two queries both sides end with: the first item by `createdAt`, and the ids of the
    /// items named like the dataset's first one.
    static func expected(_ run: RunContext) -> (first: Int64, named: [Int64]) {
        let items = run.dataset.todoItems
        let first = items.min { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }!.id
        let name = items[0].name
        return (first, items.filter { $0.name == name }.map(\.id))
    }

    /// Opens a new store with the indexed to-do schema (not timed), then times one
    /// `BatchInsertRequest` of every item (durable on return), the build of the two indexes
    /// and the two fetches, each of which must plan through its index.
    static func strata(_ run: RunContext) async throws -> Double {
        let directory = run.directory.appendingPathComponent("strata").path
        let schema = IndexedWorkloads.todoIndexedSchema
        let store = try PersistentStore.open(at: directory, schema: schema, options: StrataFixtures.options)
        let items = run.dataset.todoItems
        let byDate = FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])
        var first = byDate
        first.fetchLimit = 1
        let named = FetchRequest(entityName: "TodoItem",
                                 predicate: try ObjectPredicate(format: "name == %@", items[0].name))
        let ((firstID, namedIDs), seconds) = try Stopwatch.time {
            _ = try store.execute(BatchInsert.request(for: items))
            // SQLite's indexes are up to date when its insert commits: Strata's are built
            // before the fetches too, inside the timed part.
            try store.buildIndexes()
            let context = ObjectContext(store: store)
            return try context.performAndWait {
                (try context.fetchObjectIDs(first).first?.primaryKey, try context.fetchObjectIDs(named).map(\.primaryKey))
            }
        }
        let byDateIndex = try store.fetchStrategy(first).orderIndex, byNameIndex = try store.fetchStrategy(named).lookupIndex
        precondition(byDateIndex == ["createdAt"], "the first-by-date fetch does not walk the index")
        precondition(byNameIndex == ["name"], "the by-name fetch does not use the index")
        let wanted = expected(run)
        precondition(firstID == wanted.first && namedIDs.sorted() == wanted.named, "Strata's indexed fetches found other items")
        precondition(StrataFixtures.todoCount(store) == run.scale, "the indexed store lost items")
        try store.close()
        return seconds
    }

    /// Creates the `todo` table and its two indexes (not timed).
    static func createIndexedTable(_ db: Database) throws {
        try TodoItem.createTable(db)
        try db.execute(sql: "CREATE INDEX todo_createdAt ON todo(createdAt)")
        try db.execute(sql: "CREATE INDEX todo_name ON todo(name)")
    }

    /// The two queries, timed with the insert on both SQLite sides.
    static func queries(_ db: Database, name: String) throws -> (Int64?, [Int64]) {
        (try Int64.fetchOne(db, sql: "SELECT id FROM todo ORDER BY createdAt LIMIT 1"),
         try Int64.fetchAll(db, sql: "SELECT id FROM todo WHERE name = ?", arguments: [name]))
    }

    /// GRDB records inserted one by one in one transaction into the indexed table.
    static func sqliteRecords(_ run: RunContext) async throws -> Double {
        try await sqlite(run) { db, items in
            for item in items { try item.insert(db) }
        }
    }

    /// One prepared `INSERT`, bound, stepped and reset per row, in one transaction.
    static func sqliteBest(_ run: RunContext) async throws -> Double {
        try await sqlite(run, insert: ContextInsert.insertBest)
    }

    /// Times `insert` in one write transaction and then the two queries.
    private static func sqlite(_ run: RunContext,
                               insert: @escaping @Sendable (Database, [TodoItem]) throws -> Void) async throws -> Double {
        let path = run.directory.appendingPathComponent(SQLiteDatabase.todoFile).path
        let queue = try SQLiteDatabase.openQueue(at: path)
        try await queue.write(createIndexedTable)
        let items = run.dataset.todoItems
        let name = items[0].name
        let ((firstID, namedIDs), seconds) = try Stopwatch.time {
            try queue.write { db in try insert(db, items) }
            return try queue.read { db in try queries(db, name: name) }
        }
        let wanted = expected(run)
        precondition(firstID == wanted.first && namedIDs.sorted() == wanted.named, "SQLite's indexed queries found other rows")
        let count = try await queue.read { db in try TodoItem.fetchCount(db) }
        precondition(count == run.scale, "SQLite lost rows")
        try queue.close()
        return seconds
    }
}
