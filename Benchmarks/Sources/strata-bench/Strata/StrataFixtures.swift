import Foundation
import Strata
import StrataEncryption

/// The prepared Strata stores that several workloads start from, built once per process and
/// copied into each run, like ``SQLiteFixtures``.
enum StrataFixtures {
    /// The to-do schema: what an application declares, and what every to-do workload opens
    /// the store with.
    static let todoSchema: Schema = try! Schema {
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("createdAt", .date)
            Attribute("done", .bool)
        }
    }

    /// The people schema of the predicate workloads.
    static let personSchema: Schema = try! Schema {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("age", .int64)
        }
    }

    /// Store options for stores the harness builds or measures: the defaults (`.always`
    /// durability), except that automatic checkpoints are off, so a background checkpoint
    /// started by one run's large save cannot run on into the next run's measurement or race
    /// the explicit ``PersistentStore/checkpoint()`` of a fixture. During an encrypted run
    /// (`--encryption`) they carry ``BenchEncryption/key``, so every store the workload creates
    /// or opens is encrypted at rest.
    static var options: PersistentStore.Options {
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        options.encryptionKey = BenchEncryption.key
        return options
    }

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

    /// Copies the to-do store into the run's directory and opens it with the application's
    /// schema and ``options``; neither step is timed by the workloads that call it.
    static func openTodoStore(for run: RunContext) async throws -> PersistentStore {
        let directory = try await todoStore(for: run)
        return try PersistentStore.open(at: directory.path, schema: todoSchema, options: options)
    }

    /// Copies the people store into the run's directory and opens it with ``personSchema``
    /// and ``options``; neither step is timed by the workloads that call it.
    static func openPersonStore(for run: RunContext) async throws -> PersistentStore {
        let directory = try await personStore(for: run)
        return try PersistentStore.open(at: directory.path, schema: personSchema, options: options)
    }

    /// Creates a store in the empty `directory` holding `items` as `TodoItem` objects
    /// (name: string, createdAt: date, done: bool), checkpointed, and closes it.
    static func buildTodoStore(at directory: URL, items: [TodoItem]) async throws {
        let store = try PersistentStore.open(at: directory.path, schema: todoSchema, options: options)
        try insertAndSave(items, into: ObjectContext(store: store))
        try store.checkpoint()
        try store.close()
    }

    /// Creates a store in the empty `directory` holding `people` as `Person` objects
    /// (firstName: string, lastName: string, age: int64), checkpointed, and closes it.
    static func buildPersonStore(at directory: URL, people: [Person]) async throws {
        let store = try PersistentStore.open(at: directory.path, schema: personSchema, options: options)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for person in people {
                let object = try context.insert("Person")
                try object.setValue(.string(person.firstName), forKey: "firstName")
                try object.setValue(.string(person.lastName), forKey: "lastName")
                try object.setValue(.int(Int64(person.age)), forKey: "age")
            }
            try context.save()
        }
        try store.checkpoint()
        try store.close()
    }

    /// Inserts `items` as `TodoItem` objects into `context` and saves once, on the context's
    /// queue: what workload 1 times.
    ///
    /// The store assigns primary keys itself (there are no temporary IDs and no way to choose
    /// a key), so in a new store the items get keys 1...N in order, the same ids as the
    /// SQLite rows.
    static func insertAndSave(_ items: [TodoItem], into context: ObjectContext) throws {
        try context.performAndWait {
            for item in items { try insert(item, into: context) }
            try context.save()
        }
    }

    /// Inserts one `TodoItem` object; call on the context's queue.
    static func insert(_ item: TodoItem, into context: ObjectContext) throws {
        let object = try context.insert("TodoItem")
        try object.setValue(.string(item.name), forKey: "name")
        try object.setValue(.date(item.createdAt), forKey: "createdAt")
        try object.setValue(.bool(item.done), forKey: "done")
    }

    /// The number of `TodoItem`s in the newest version of `store`.
    static func todoCount(_ store: PersistentStore) -> Int {
        store.rowCounts["TodoItem"] ?? 0
    }
}
