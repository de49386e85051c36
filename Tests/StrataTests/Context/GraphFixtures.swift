import Foundation
import StrataStorage
import Testing
import StrataTestSupport
@testable import Strata

/// Schemas shared by the object-graph tests.
enum GraphSchemas {
    /// Authors, their books (cascade) and the books' chapters (cascade, so deleting an author
    /// deletes two levels), plus a one-to-one passport (nullify), and every attribute type.
    static let library = try! Schema {
        Entity("Author") {
            Attribute("name", .string).length(1...40)
            Attribute("born", .date, optional: true)
            Attribute("tag", .uuid, optional: true)
            Attribute("photo", .binary, optional: true)
            Attribute("rating", .double, optional: true)
            Attribute("age", .int16, optional: true).range(0...150)
            Attribute("active", .bool, default: true)
            Relationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .cascade)
            Relationship("passport", to: "Passport", inverse: "holder", deleteRule: .nullify)
        }
        Entity("Book") {
            Attribute("title", .string)
            Attribute("pages", .int32, optional: true)
            Relationship("author", to: "Author", inverse: "books")
            Relationship("chapters", to: "Chapter", inverse: "book", toMany: true, deleteRule: .cascade)
        }
        Entity("Chapter") {
            Attribute("number", .int64)
            Relationship("book", to: "Book", inverse: "chapters")
        }
        Entity("Passport") {
            Attribute("number", .string)
            Relationship("holder", to: "Author", inverse: "passport")
        }
    }

    /// A parent whose to-many `children` has `rule`; a child's `parent` nullifies.
    static func parentChild(rule: DeleteRule) -> Schema {
        try! Schema {
            Entity("Parent") {
                Attribute("name", .string)
                Relationship("children", to: "Child", inverse: "parent", toMany: true, deleteRule: rule)
            }
            Entity("Child") {
                Attribute("name", .string)
                Relationship("parent", to: "Parent", inverse: "children")
            }
        }
    }

    /// One entity with three independent attributes, for conflicts and counters.
    static let notes = try! Schema {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("body", .string)
            Attribute("count", .int64, default: 0)
        }
    }
}

/// A store in a fresh temporary directory, reopenable, removed by ``remove()``.
final class StoreFixture {
    /// The directory holding the store.
    let directory: TemporaryDirectory
    /// The schema it is opened with.
    let schema: Schema
    /// The options it is opened with.
    let options: PersistentStore.Options
    /// The open store.
    private(set) var store: PersistentStore

    /// Creates and opens a new store.
    init(_ schema: Schema, options: PersistentStore.Options = .init()) throws {
        directory = try TemporaryDirectory(prefix: "strata-graph")
        self.schema = schema
        self.options = options
        store = try PersistentStore.open(at: directory.path, schema: schema, options: options)
    }

    /// Closes the store and opens it again from its files.
    @discardableResult
    func reopen() throws -> PersistentStore {
        try store.close()
        store = try PersistentStore.open(at: directory.path, schema: schema, options: options)
        return store
    }

    /// A new private-queue context on the store.
    func context(_ name: String? = nil, policy: MergePolicy = .error) -> ObjectContext {
        let context = ObjectContext(store: store, name: name)
        context.mergePolicy = policy
        return context
    }

    /// Closes the store and deletes its directory.
    func remove() {
        try? store.close()
        directory.remove()
    }
}

/// Every row of every entity in a store's newest version, by entity, primary key and
/// property name (to-one relationships as `.int(primaryKey)`): what "the graph is
/// identical" compares.
struct GraphDump: Equatable, CustomStringConvertible {
    var entities: [String: [Int64: [String: AttributeValue]]]

    /// Reads the newest published version of `store`.
    init(_ store: PersistentStore) {
        let version = store.currentVersion
        var entities: [String: [Int64: [String: AttributeValue]]] = [:]
        for table in version.tables {
            var rows: [Int64: [String: AttributeValue]] = [:]
            for key in table.allKeys {
                let location = table.locate(key)!
                var row: [String: AttributeValue] = [:]
                for (index, property) in table.layout.properties.enumerated() {
                    row[property.name] = table.value(index, at: location)
                }
                rows[key] = row
            }
            entities[table.layout.entity.name] = rows
        }
        self.entities = entities
    }

    /// Row counts, for short failure messages.
    var description: String {
        entities.keys.sorted().map { "\($0): \(entities[$0]!.count) rows" }.joined(separator: ", ")
    }
}

/// Values collected from callbacks on other threads.
final class Collected<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    /// Appends one value.
    func append(_ item: Element) { items.withLock { $0.append(item) } }

    /// Everything appended so far.
    var values: [Element] { items.withLock { $0 } }
}

/// Polls `condition` on `context`'s queue until it holds or `timeout` passes; returns
/// whether it held. Each poll is a `performAndWait`, so it also orders after every block
/// already scheduled on the queue.
func waitUntil(_ context: ObjectContext, timeout: Duration = .seconds(10),
               _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if try context.performAndWait(condition) { return true }
        if clock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.001)
    }
}

/// The `StrataError` code of `error`, if it is one.
func strataCode(_ error: any Error) -> StrataError.Code? { (error as? StrataError)?.code }
