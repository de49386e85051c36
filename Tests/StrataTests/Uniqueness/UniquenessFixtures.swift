import Foundation
@testable import Strata

/// Schemas and helpers shared by the uniqueness tests.
enum UniquenessFixtures {
    /// People with a unique, optional email; `name` optional, `n` defaulting to 0.
    static let people = try! Schema {
        Entity("Person", uniquenessConstraints: [["email"]]) {
            Attribute("email", .string, optional: true)
            Attribute("name", .string, optional: true)
            Attribute("n", .int64, default: 0)
        }
    }

    /// The same people without the constraint.
    static let unconstrained = try! Schema {
        Entity("Person") {
            Attribute("email", .string, optional: true)
            Attribute("name", .string, optional: true)
            Attribute("n", .int64, default: 0)
        }
    }

    /// Saves one person per `(email, name, n)` through a fresh context; returns their IDs.
    @discardableResult
    static func save(_ fixture: StoreFixture, _ people: [(String?, String?, Int64)]) throws -> [ObjectID] {
        let context = fixture.context("seed")
        return try context.performAndWait {
            let objects = try people.map { email, name, n in
                let person = try context.insert("Person")
                try person.setValues(["email": email.map { .string($0) } ?? .null, "name": name.map { .string($0) } ?? .null, "n": .int(n)])
                return person
            }
            try context.save()
            return objects.map(\.objectID)
        }
    }

    /// The stored people by primary key, as (email, name, n).
    static func rows(_ store: PersistentStore) -> [Int64: Row] {
        (GraphDump(store).entities["Person"] ?? [:]).mapValues { Row($0) }
    }

    /// One stored person.
    struct Row: Equatable, CustomStringConvertible {
        var email: String?
        var name: String?
        var n: Int64

        init(email: String?, name: String?, n: Int64) {
            self.email = email
            self.name = name
            self.n = n
        }

        init(_ values: [String: AttributeValue]) {
            if case .string(let email) = values["email"] { self.email = email }
            if case .string(let name) = values["name"] { self.name = name }
            if case .int(let n) = values["n"] { self.n = n } else { n = -1 }
        }

        var description: String { "(\(email ?? "nil"), \(name ?? "nil"), \(n))" }
    }
}
