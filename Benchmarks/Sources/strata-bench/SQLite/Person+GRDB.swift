import GRDB

/// GRDB record conformance for ``Person``, written by hand (GRDB's fast path).
extension Person: FetchableRecord, PersistableRecord {
    static let databaseTableName = "person"

    /// The table's columns.
    enum Columns {
        static let id = Column("id")
        static let firstName = Column("firstName")
        static let lastName = Column("lastName")
        static let age = Column("age")
    }

    init(row: Row) throws {
        id = row[Columns.id]
        firstName = row[Columns.firstName]
        lastName = row[Columns.lastName]
        age = row[Columns.age]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.firstName] = firstName
        container[Columns.lastName] = lastName
        container[Columns.age] = age
    }

    /// Creates the `person` table, deliberately without an index on `age` (issue 3 compares
    /// with SQLite scanning).
    static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.primaryKey("id", .integer)
            table.column("firstName", .text).notNull()
            table.column("lastName", .text).notNull()
            table.column("age", .integer).notNull()
        }
    }
}
