import Foundation
import Strata

/// The prepared Strata stores that several workloads start from, built once per process and
/// copied into each run, like ``SQLiteFixtures``.
///
/// **To fill in:** ``buildTodoStore(at:items:)`` and ``buildPersonStore(at:people:)``. Until
/// they stop throwing ``StrataPending``, every workload that needs a prepared store reports
/// "pending".
enum StrataFixtures {
    /// Copies the to-do store into the run's directory and returns the store's directory.
    static func todoStore(for run: RunContext) async throws -> URL {
        let items = run.dataset.todoItems
        return try await run.fixtures.copy(
            "strata-todo", to: run.directory.appendingPathComponent("strata")
        ) { directory in
            try await buildTodoStore(at: directory, items: items)
        }
    }

    /// Copies the people store into the run's directory and returns the store's directory.
    static func personStore(for run: RunContext) async throws -> URL {
        let people = run.dataset.people
        return try await run.fixtures.copy(
            "strata-person", to: run.directory.appendingPathComponent("strata")
        ) { directory in
            try await buildPersonStore(at: directory, people: people)
        }
    }

    /// Creates a store in the empty `directory` holding `items` as `TodoItem` objects
    /// (name: string, createdAt: date, done: bool), checkpointed, and closes it.
    static func buildTodoStore(at directory: URL, items: [TodoItem]) async throws {
        throw StrataPending("a store with a schema, and batch insert or a context save")
    }

    /// Creates a store in the empty `directory` holding `people` as `Person` objects
    /// (firstName: string, lastName: string, age: int64), checkpointed, and closes it.
    static func buildPersonStore(at directory: URL, people: [Person]) async throws {
        throw StrataPending("a store with a schema, and batch insert or a context save")
    }
}
