import Foundation
import GRDB
import Strata

/// Issue 20: the workloads with indexes on both sides. Strata's store is opened once with
/// the indexed schema (a lightweight migration that adds the indexes; not timed), SQLite's
/// database gets the same index (not timed):
///
/// - `indexed-sorted-fetch`: `CREATE INDEX todo_createdAt ON todo(createdAt)`
/// - `indexed-age-ids`: `CREATE INDEX person_age ON person(age)`
/// - `indexed-open-vs-open` (Strata only): the to-do store with indexes on `createdAt` and
///   `name`, opened and counted, ÷ the same store without them.
enum IndexedWorkloads {
    static let todoIndexedSchema: Schema = {
        var schema = StrataFixtures.todoSchema
        schema.entities[0].indexes = [["createdAt"], ["name"]]
        return try! schema.validated()
    }()

    static let personIndexedSchema: Schema = {
        var schema = StrataFixtures.personSchema
        let person = schema.entities.firstIndex { $0.name == "Person" }!
        schema.entities[person].indexes = [["age"]]
        return try! schema.validated()
    }()

    static let sortedFetch = Workload(
        name: "indexed-sorted-fetch", group: "indexed", item: 20,
        summary: "fetch all N items sorted by indexed createdAt as faults, read name | GRDB records, createdAt indexed",
        unit: .seconds, target: .ratioAtMost(0.3), strata: strataSortedFetch, sqlite: .measured(sqliteSortedFetch))

    static let ageIDs = Workload(
        name: "indexed-age-ids", group: "indexed", item: 20,
        summary: "IDs of people with age BETWEEN {100, 200}, age indexed | SELECT id … WHERE age BETWEEN 100 AND 200, age indexed",
        unit: .seconds, target: .ratioAtMost(0.5), strata: strataAgeIDs, sqlite: .measured(sqliteAgeIDs))

    static let openOverPlainOpen = StorageBenchmark(
        name: "indexed-open-vs-open",
        summary: "open + count of the N-item store with two indexes (createdAt, name) ÷ without",
        unit: .ratio, target: .atMost(1.5), limit: nil, measure: measureOpenOverPlainOpen)

    static let firstFetchAfterOpen = StorageBenchmark(
        name: "indexed-open-first-fetch",
        summary: "open + the first age BETWEEN {100, 200} IDs fetch, age indexed (that fetch scans while the index is built in the background) ÷ the same without the index",
        unit: .ratio, target: .atMost(1.5), limit: nil, measure: measureFirstFetchAfterOpen)

    /// Opens the copied store with `schema` (migrating it to the indexes), closes it, and
    /// returns its directory; not timed.
    static func indexedCopy(_ directory: URL, schema: Schema) throws -> String {
        let store = try PersistentStore.open(at: directory.path, schema: schema, options: StrataFixtures.options)
        _ = try store.checkpoint()
        try store.close()
        return directory.path
    }

    static func strataSortedFetch(_ run: RunContext) async throws -> Double {
        let directory = try indexedCopy(try await StrataFixtures.todoStore(for: run), schema: todoIndexedSchema)
        // SQLite reads its index from disk; Strata's `createdAt` index is built by the
        // `fetchStrategy` call below, not timed, on its thread (background builds off: a fetch
        // would otherwise sort while it is built). Not `buildIndexes()`: building the `name`
        // index too would decode every chunk whole before the timed fetch, which must decode
        // the names it reads itself, as it always did.
        var options = StrataFixtures.options
        options.buildsIndexesInBackground = false
        let store = try PersistentStore.open(at: directory, schema: todoIndexedSchema, options: options)
        let request = FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])
        let strategy = try store.fetchStrategy(request)
        precondition(strategy.orderIndex == ["createdAt"], "the sorted fetch does not walk the index")
        let ((ids, characters), seconds) = try Stopwatch.time {
            let context = ObjectContext(store: store)
            return try context.performAndWait {
                let items = try context.fetch(request)
                var characters = 0
                var keys: [Int64] = []
                keys.reserveCapacity(items.count)
                for item in items {
                    characters &+= try item.string("name")?.utf8.count ?? 0
                    keys.append(item.objectID.primaryKey)
                }
                return (keys, characters)
            }
        }
        precondition(ids == run.dataset.todoIDsByCreationDate, "Strata's items are not all there in createdAt order")
        precondition(characters == run.dataset.todoNameBytes, "read \(characters) bytes of names")
        try store.close()
        return seconds
    }

    static func sqliteSortedFetch(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.todoDatabase(for: run))
        try await queue.write { db in try db.execute(sql: "CREATE INDEX todo_createdAt ON todo(createdAt)") }
        let ((count, characters), seconds) = try Stopwatch.time {
            let items = try queue.read { db in try TodoItem.order(TodoItem.Columns.createdAt).fetchAll(db) }
            var characters = 0
            for item in items { characters &+= item.name.utf8.count }
            return (items.count, characters)
        }
        precondition(count == run.scale && characters == run.dataset.todoNameBytes, "SQLite fetched other records")
        try queue.close()
        return seconds
    }

    static func strataAgeIDs(_ run: RunContext) async throws -> Double {
        let directory = try indexedCopy(try await StrataFixtures.personStore(for: run), schema: personIndexedSchema)
        let store = try PersistentStore.open(at: directory, schema: personIndexedSchema, options: StrataFixtures.options)
        try store.buildIndexes()   // not timed, as SQLite's index is read from disk
        let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {100, 200}"))
        let strategy = try store.fetchStrategy(request)
        precondition(strategy.lookupIndex == ["age"], "the fetch does not use the age index")
        let context = ObjectContext(store: store)
        let (ids, seconds) = try Stopwatch.time {
            try context.performAndWait { try context.fetchObjectIDs(request) }
        }
        precondition(ids.map(\.primaryKey) == run.dataset.idsOfPeopleAgedHundredToTwoHundred, "Strata fetched other people")
        try store.close()
        return seconds
    }

    static func sqliteAgeIDs(_ run: RunContext) async throws -> Double {
        let queue = try SQLiteDatabase.openQueue(at: try await SQLiteFixtures.personDatabase(for: run))
        try await queue.write { db in try db.execute(sql: "CREATE INDEX person_age ON person(age)") }
        let (ids, seconds) = try Stopwatch.time {
            try queue.read { db in
                try Int64.fetchAll(db, sql: "SELECT id FROM person WHERE age BETWEEN 100 AND 200 ORDER BY id")
            }
        }
        precondition(ids == run.dataset.idsOfPeopleAgedHundredToTwoHundred, "SQLite fetched other people")
        try queue.close()
        return seconds
    }

    /// Open + the first `age BETWEEN {100, 200}` fetch of a copy of the person store with
    /// `age` indexed, ÷ the same on a copy without the index (the fetch scans). The figure a
    /// user sees when a store opens and its first query runs: with the index not built yet,
    /// that fetch scans too, and the index is built on a background thread of the lowest
    /// priority (`PersistentStore.Options.buildsIndexesInBackground`).
    static func measureFirstFetchAfterOpen(_ run: RunContext) async throws -> Double {
        let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {100, 200}"))
        func openAndFetch(_ directory: String, _ schema: Schema) throws -> Double {
            let ((store, ids), seconds) = try Stopwatch.time {
                let store = try PersistentStore.open(at: directory, schema: schema, options: StrataFixtures.options)
                let context = ObjectContext(store: store)
                return (store, try context.performAndWait { try context.fetchObjectIDs(request) })
            }
            precondition(ids.map(\.primaryKey) == run.dataset.idsOfPeopleAgedHundredToTwoHundred, "Strata fetched other people")
            try store.close()
            return seconds
        }
        let plain = try await StrataFixtures.personStore(for: run)
        let copy = try await run.fixtures.copy("strata-person", to: run.directory.appendingPathComponent("strata-person-indexed")) { _ in
            preconditionFailure("the person store is built by the plain copy above")
        }
        let indexed = try indexedCopy(copy, schema: personIndexedSchema)
        let plainSeconds = try openAndFetch(plain.path, StrataFixtures.personSchema)
        return try openAndFetch(indexed, personIndexedSchema) / plainSeconds
    }

    /// A plain open of one copy of the to-do store, then an open of an indexed copy: the ratio.
    static func measureOpenOverPlainOpen(_ run: RunContext) async throws -> Double {
        let plain = try await OpenAndCount.strata(run)
        let copy = try await run.fixtures.copy("strata-todo", to: run.directory.appendingPathComponent("strata-indexed")) { _ in
            preconditionFailure("the to-do store is built by the plain open above")
        }
        let directory = try indexedCopy(copy, schema: todoIndexedSchema)
        let (store, seconds) = try Stopwatch.time {
            let store = try PersistentStore.open(at: directory, schema: todoIndexedSchema, options: StrataFixtures.options)
            precondition(StrataFixtures.todoCount(store) == run.scale, "the indexed store lost items")
            return store
        }
        try store.close()
        return seconds / plain
    }
}
