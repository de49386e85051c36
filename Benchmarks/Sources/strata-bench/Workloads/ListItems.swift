import Foundation
import Strata
import StrataBenchModels

/// Issue 20: "1,000 lists × 1,000 items: read every list's items". The N to-do items are
/// split into lists of 1,000 in id order (item `id` belongs to list `(id - 1) / 1000 + 1`;
/// 1,000 lists at 1M), and each side fetches every list and reads the items of each through
/// the relationship, reading each item's `name`.
///
/// Strata: `objects(forKey: "items")` on each list, no prefetching (a to-many relationship
/// reads through the index on its inverse foreign key, which the first read builds: inside
/// the time). SQLite: GRDB's association fetch, `list.request(for: TodoListRecord.items)`,
/// with `todo(listId)` indexed (not timed).
enum ListItems {
    /// Items per list.
    static let perList = ListsFixture.itemsPerList

    static let workload = Workload(
        name: "list-items", group: "indexed", item: 20,
        summary: "fetch every list (N/1,000), read each list's 1,000 items and their names | GRDB association fetch per list, listId indexed",
        unit: .seconds, target: .ratioAtMost(0.5), strata: strata, sqlite: .measured(ListItemsSQLite.associationFetch),
        best: SQLiteBest(.measured(ListItemsSQLite.preparedFetch),
                         how: "CREATE INDEX todo_listId ON todo(listId); SELECT id FROM todoList; one prepared SELECT id, name FROM todo WHERE listId = ? per list"),
        judgedAgainst: .records)

    /// The lists and items schema: `TodoList.items` ↔ `TodoItem.list`.
    static let schema: Schema = ListsFixture.schema

    /// How many lists `count` items make.
    static func listCount(_ count: Int) -> Int { (count + perList - 1) / perList }

    /// The list of the item with `id`.
    static func list(of id: Int64) -> Int64 { (id - 1) / Int64(perList) + 1 }

    /// A copy of the lists store in the run's directory (built once per run of the harness:
    /// two batch inserts, a checkpoint).
    static func store(for run: RunContext) async throws -> URL {
        let items = run.dataset.todoItems
        return try await run.fixtures.copy("strata-lists", to: run.directory.appendingPathComponent("strata-lists")) { directory in
            let store = try PersistentStore.open(at: directory.path, schema: schema, options: StrataFixtures.options)
            let lists = listCount(items.count)
            _ = try store.execute(BatchInsertRequest(entityName: "TodoList", count: lists) { index, row in
                row["title"] = .string("List \(index + 1)")
            })
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", count: items.count) { index, row in
                let item = items[index]
                row["name"] = .string(item.name)
                row["createdAt"] = .date(item.createdAt)
                row["done"] = .bool(item.done)
                row["list"] = .int(list(of: item.id))
            })
            _ = try store.checkpoint()
            try store.close()
        }
    }

    /// Opens the store (not timed), then times fetching the lists and reading each one's
    /// items and their names in a new context. Every item must be read once.
    static func strata(_ run: RunContext) async throws -> Double {
        let store = try PersistentStore.open(at: try await store(for: run).path, schema: schema, options: StrataFixtures.options)
        let ((count, characters), seconds) = try Stopwatch.time {
            let context = ObjectContext(store: store)
            return try context.performAndWait {
                var count = 0, characters = 0
                for list in try context.fetch(FetchRequest(entityName: "TodoList")) {
                    for item in try list.objects(forKey: "items") {
                        count += 1
                        characters &+= try item.string("name")?.utf8.count ?? 0
                    }
                }
                return (count, characters)
            }
        }
        precondition(count == run.scale && characters == run.dataset.todoNameBytes,
                     "Strata read \(count) items (\(characters) bytes of names) through the lists")
        try store.close()
        return seconds
    }
}
