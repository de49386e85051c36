import Foundation
import GRDB

/// The prepared SQLite databases that several workloads start from, built once per process
/// by inserting the dataset in one transaction and checkpointing, then copied into each run.
enum SQLiteFixtures {
    /// Copies the 1M-row (`--scale`) to-do database into the run's directory.
    ///
    /// - Returns: the path of the copied `todo.sqlite`.
    static func todoDatabase(for run: RunContext) async throws -> String {
        let items = run.dataset.todoItems
        let directory = try await run.fixtures.copy(
            "sqlite-todo", to: run.directory.appendingPathComponent("sqlite")
        ) { directory in
            try build(at: directory.appendingPathComponent(SQLiteDatabase.todoFile).path,
                      createTable: TodoItem.createTable, rows: items)
        }
        return directory.appendingPathComponent(SQLiteDatabase.todoFile).path
    }

    /// Copies the people database into the run's directory.
    ///
    /// - Returns: the path of the copied `person.sqlite`.
    static func personDatabase(for run: RunContext) async throws -> String {
        let people = run.dataset.people
        let directory = try await run.fixtures.copy(
            "sqlite-person", to: run.directory.appendingPathComponent("sqlite")
        ) { directory in
            try build(at: directory.appendingPathComponent(SQLiteDatabase.personFile).path,
                      createTable: Person.createTable, rows: people)
        }
        return directory.appendingPathComponent(SQLiteDatabase.personFile).path
    }

    /// Creates a database at `path` holding `rows`, checkpointed and closed so the directory
    /// holds just the main file.
    static func build<Record: PersistableRecord & Sendable>(
        at path: String, createTable: @escaping @Sendable (Database) throws -> Void, rows: [Record]
    ) throws {
        let queue = try SQLiteDatabase.openQueue(at: path)
        try queue.write { db in
            try createTable(db)
            for row in rows { try row.insert(db) }
        }
        try SQLiteDatabase.checkpoint(queue)
        try queue.close()
    }
}
