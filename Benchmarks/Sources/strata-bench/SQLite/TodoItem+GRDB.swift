import Foundation
import GRDB

/// GRDB record conformance for ``TodoItem``, written by hand (GRDB's fast path, faster than
/// `Codable`), with `createdAt` stored as REAL seconds since 1970 rather than GRDB's default
/// text, so SQLite gets its most compact and fastest encoding.
extension TodoItem: FetchableRecord, PersistableRecord {
    static let databaseTableName = "todo"

    /// The table's columns.
    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let createdAt = Column("createdAt")
        static let done = Column("done")
    }

    init(row: Row) throws {
        id = row[Columns.id]
        name = row[Columns.name]
        createdAt = Date(timeIntervalSince1970: row[Columns.createdAt])
        done = row[Columns.done]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.name] = name
        container[Columns.createdAt] = createdAt.timeIntervalSince1970
        container[Columns.done] = done
    }

    /// Creates the `todo` table, with no index beyond the primary key.
    static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.primaryKey("id", .integer)
            table.column("name", .text).notNull()
            table.column("createdAt", .double).notNull()
            table.column("done", .boolean).notNull()
        }
    }
}
