import Foundation
import GRDB

/// The databases the best SQLite side starts from: the same rows as ``SQLiteFixtures``', plus
/// the index the workload's query wants, built once per process and copied into each run.
enum SQLiteBestFixtures {
    /// The index on `person(age)` that `age BETWEEN 100 AND 200` wants.
    static let personAgeIndex = "CREATE INDEX person_age ON person(age)"
    /// The index on `todo(createdAt)` that `ORDER BY createdAt` wants.
    static let todoCreatedAtIndex = "CREATE INDEX todo_createdAt ON todo(createdAt)"

    /// Copies the people database with ``personAgeIndex`` into the run's directory.
    ///
    /// - Returns: the path of the copied `person.sqlite`.
    static func indexedPersonDatabase(for run: RunContext) async throws -> String {
        let people = run.dataset.people
        let directory = try await run.fixtures.copy(
            "sqlite-person-age-index", to: run.directory.appendingPathComponent("sqlite-best")
        ) { directory in
            try SQLiteFixtures.build(
                at: directory.appendingPathComponent(SQLiteDatabase.personFile).path,
                createTable: { db in
                    try Person.createTable(db)
                    try db.execute(sql: personAgeIndex)
                }, rows: people)
        }
        return directory.appendingPathComponent(SQLiteDatabase.personFile).path
    }

    /// Copies the to-do database with ``todoCreatedAtIndex`` into the run's directory.
    ///
    /// - Returns: the path of the copied `todo.sqlite`.
    static func indexedTodoDatabase(for run: RunContext) async throws -> String {
        let items = run.dataset.todoItems
        let directory = try await run.fixtures.copy(
            "sqlite-todo-createdAt-index", to: run.directory.appendingPathComponent("sqlite-best")
        ) { directory in
            try SQLiteFixtures.build(
                at: directory.appendingPathComponent(SQLiteDatabase.todoFile).path,
                createTable: { db in
                    try TodoItem.createTable(db)
                    try db.execute(sql: todoCreatedAtIndex)
                }, rows: items)
        }
        return directory.appendingPathComponent(SQLiteDatabase.todoFile).path
    }
}
