import Foundation
import GRDB

/// A to-do list as a GRDB record, with its items as an association.
struct TodoListRecord: FetchableRecord, EncodableRecord, TableRecord {
    static let databaseTableName = "todoList"
    /// The list's items: `todo.listId` refers to `todoList.id`.
    static let items = hasMany(ListItemRecord.self, using: ForeignKey(["listId"]))

    var id: Int64
    var title: String

    init(row: Row) throws {
        id = row["id"]
        title = row["title"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["title"] = title
    }
}

/// An item of a list, as the association fetch reads it (id and name).
struct ListItemRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "todo"

    var id: Int64
    var name: String

    init(row: Row) throws {
        id = row["id"]
        name = row["name"]
    }
}

/// The SQLite sides of ``ListItems``: the lists database (built once, not timed) and the two
/// ways of reading it.
enum ListItemsSQLite {
    static let file = "lists.sqlite"

    /// A copy of the lists database in the run's directory: `todoList(id, title)` and
    /// `todo(id, name, createdAt, done, listId)` with `todo(listId)` indexed.
    static func database(for run: RunContext) async throws -> String {
        let items = run.dataset.todoItems
        let directory = try await run.fixtures.copy("sqlite-lists", to: run.directory.appendingPathComponent("sqlite-lists")) { directory in
            let queue = try SQLiteDatabase.openQueue(at: directory.appendingPathComponent(file).path)
            try await queue.write { db in
                try db.create(table: "todoList") { table in
                    table.primaryKey("id", .integer)
                    table.column("title", .text).notNull()
                }
                try db.create(table: "todo") { table in
                    table.primaryKey("id", .integer)
                    table.column("name", .text).notNull()
                    table.column("createdAt", .double).notNull()
                    table.column("done", .boolean).notNull()
                    table.column("listId", .integer).notNull().references("todoList")
                }
                try db.execute(sql: "CREATE INDEX todo_listId ON todo(listId)")
                let list = try RawStatement("INSERT INTO todoList (id, title) VALUES (?, ?)", in: db)
                for id in 1...Int64(ListItems.listCount(items.count)) {
                    list.bind(1, id)
                    list.bind(2, "List \(id)")
                    _ = try list.step()
                    list.reset()
                }
                let item = try RawStatement("INSERT INTO todo (id, name, createdAt, done, listId) VALUES (?, ?, ?, ?, ?)", in: db)
                for row in items {
                    item.bind(1, row.id)
                    item.bind(2, row.name)
                    item.bind(3, row.createdAt.timeIntervalSince1970)
                    item.bind(4, row.done ? 1 as Int64 : 0)
                    item.bind(5, ListItems.list(of: row.id))
                    _ = try item.step()
                    item.reset()
                }
            }
            try SQLiteDatabase.checkpoint(queue)
            try queue.close()
        }
        return directory.appendingPathComponent(file).path
    }

    /// GRDB records: every list, then each list's items through the association.
    static func associationFetch(_ run: RunContext) async throws -> Double {
        try await measure(run) { db in
            var count = 0, characters = 0
            for list in try TodoListRecord.fetchAll(db) {
                for item in try list.request(for: TodoListRecord.items).fetchAll(db) {
                    count += 1
                    characters &+= item.name.utf8.count
                }
            }
            return (count, characters)
        }
    }

    /// SQLite at its best: the list ids, then one prepared statement stepped per list.
    static func preparedFetch(_ run: RunContext) async throws -> Double {
        try await measure(run) { db in
            let lists = try Int64.fetchAll(db, sql: "SELECT id FROM todoList")
            let items = try RawStatement("SELECT id, name FROM todo WHERE listId = ?", in: db)
            var count = 0, characters = 0
            for list in lists {
                items.bind(1, list)
                while try items.step() {
                    count += 1
                    characters &+= items.string(1).utf8.count
                }
                items.reset()
            }
            return (count, characters)
        }
    }

    /// Opens a copy of the database (not timed) and times `read` in one read transaction;
    /// every item must be read once.
    private static func measure(_ run: RunContext,
                                _ read: @escaping @Sendable (Database) throws -> (Int, Int)) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await database(for: run))
        let ((count, characters), seconds) = try Stopwatch.time { try queue.read(read) }
        precondition(count == run.scale && characters == run.dataset.todoNameBytes,
                     "SQLite read \(count) items (\(characters) bytes of names) through the lists")
        try queue.close()
        return seconds
    }
}
