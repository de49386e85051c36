import Foundation
import StrataTestSupport
@testable import Strata

/// The schema of the fetch tests: people (with an optional attribute of every orderable
/// type, so nils show up everywhere), their team (to-one) and pets (to-many), plus the
/// to-do lists of the relationship key-path tests.
enum FetchFixtures {
    static let schema = try! Schema {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("nickname", .string, optional: true)
            Attribute("age", .int64, optional: true)
            Attribute("score", .double, optional: true)
            Attribute("born", .date, optional: true)
            Attribute("active", .bool, optional: true)
            Attribute("size", .int16, default: 0)
            Relationship("team", to: "Team", inverse: "members")
            Relationship("pets", to: "Pet", inverse: "owner", toMany: true, deleteRule: .cascade)
        }
        Entity("Team") {
            Attribute("title", .string)
            Attribute("rank", .int32, optional: true)
            Relationship("members", to: "Person", inverse: "team", toMany: true)
        }
        Entity("Pet") {
            Attribute("name", .string)
            Attribute("age", .int32, optional: true)
            Relationship("owner", to: "Person", inverse: "pets")
        }
        Entity("TodoList") {
            Attribute("title", .string)
            Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
        }
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("done", .bool, default: false)
            Relationship("list", to: "TodoList", inverse: "items")
        }
    }

    /// A store in a fresh temporary directory, with one private-queue context on it.
    /// Call ``close()`` when done (it also removes the directory).
    final class Harness {
        let directory: TemporaryDirectory
        let store: PersistentStore
        let context: ObjectContext

        init() throws {
            directory = try TemporaryDirectory()
            store = try PersistentStore.open(at: directory.path, schema: FetchFixtures.schema)
            context = ObjectContext(store: store, name: "fetch-tests")
        }

        /// A new private-queue context on the same store.
        func newContext(_ name: String = "other") -> ObjectContext { ObjectContext(store: store, name: name) }

        func close() {
            try? store.close()
            directory.remove()
        }

        /// Runs `body` on the harness context's queue.
        func run<T>(_ body: (ObjectContext) throws -> T) throws -> T {
            try context.performAndWait { try body(context) }
        }
    }

    /// A day as a date (days since 2001-01-01).
    static func day(_ n: Double) -> Date { Date(timeIntervalSinceReferenceDate: n * 86_400) }

    /// Inserts a person with `values` (keys of the Person entity) in `context`.
    @discardableResult
    static func person(_ context: ObjectContext, _ values: [String: AttributeValue]) throws -> ManagedObject {
        let person = try context.insert("Person")
        try person.setValues(values)
        return person
    }
}

extension FetchRequest {
    /// A request built from a format string (test shorthand).
    init(_ entity: String, _ format: String? = nil, sort: [SortKey] = []) throws {
        self.init(entityName: entity, predicate: try format.map { try ObjectPredicate(format: $0) }, sortKeys: sort)
    }
}

extension ObjectContext {
    /// `fetchObjectIDs` mapped to primary keys (test shorthand; call on the queue).
    func keys(_ request: FetchRequest) throws -> [Int64] {
        try fetchObjectIDs(request).map(\.primaryKey)
    }
}
