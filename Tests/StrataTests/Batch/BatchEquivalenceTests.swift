import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// Property: a batch update or delete leaves the store exactly as fetching the objects,
/// changing (or deleting) them in a context and saving does — validation aside. Two stores
/// are built from the same seed; one gets batch requests, the other context saves; their
/// full table contents are compared after every step and after reopening.
///
/// Knobs: `STRATA_BATCH_EQ_SEEDS` (default 16 seeds), `STRATA_SEED` (first seed).
@Suite struct BatchEquivalenceTests {
    /// The to-do schema without validation rules, for the context side (a store accepts it
    /// as its application schema: only validation differs).
    static let schemaWithoutRules: Schema = {
        var schema = BatchFixture.todoSchema
        for e in schema.entities.indices {
            for a in schema.entities[e].attributes.indices { schema.entities[e].attributes[a].validationRules = [] }
        }
        return schema
    }()

    /// A random batch operation.
    enum Operation: CustomStringConvertible {
        case update(BatchUpdateRequest)
        case delete(BatchDeleteRequest)

        var description: String {
            switch self {
            case .update(let r): return "update \(r.entityName) where \(r.predicate.map { "\($0)" } ?? "all") set \(r.propertiesToUpdate)"
            case .delete(let r): return "delete \(r.entityName) where \(r.predicate.map { "\($0)" } ?? "all")"
            }
        }
    }

    static let itemPredicates: [String?] = [nil, "done == YES", "priority > 5", "priority <= 3 AND done == NO", "count == nil",
                                            "count > 100", "score < 0.5", "note == nil", "name BEGINSWITH 'item 1'", "priority IN {2, 7}"]

    /// A random update or delete, drawn from `rng`.
    static func randomOperation(_ rng: inout SplitMix64) -> Operation {
        func pick<T>(_ options: [T]) -> T { options[Int(rng.next() % UInt64(options.count))] }
        let predicate = pick(itemPredicates).map { try! ObjectPredicate(format: $0) }
        switch rng.next() % 6 {
        case 0:
            return .delete(BatchDeleteRequest(entityName: "TodoItem", predicate: predicate))
        case 1:
            return .delete(BatchDeleteRequest(entityName: "TodoList", predicate: try! ObjectPredicate(format: "title == '\(pick(["L0", "L1", "L2"]))'")))
        default:
            let candidates: [(String, BatchValue)] = [
                ("done", .constant(.bool(rng.next() % 2 == 0))), ("done", .not("done")),
                ("priority", .constant(.int(Int64(rng.next() % 11)))), ("priority", .add("priority", .int(Int64(rng.next() % 5) - 2))),
                ("count", .constant(.int(Int64(rng.next() % 1000)))), ("count", .constant(.null)), ("count", .add("count", 3)),
                ("count", .copy("priority")), ("score", .add("score", 0.25)), ("score", .constant(.double(Double(rng.next() % 100) / 100))),
                ("note", .copy("name")), ("note", .constant(.null)), ("note", .constant("checked")),
            ]
            var values: [String: BatchValue] = [:]
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let (key, value) = pick(candidates)
                values[key] = value
            }
            return .update(BatchUpdateRequest(entityName: "TodoItem", predicate: predicate, propertiesToUpdate: values))
        }
    }

    /// The value `value` gives for a row whose values before the update are `row`.
    static func evaluate(_ value: BatchValue, on row: [String: AttributeValue]) -> AttributeValue {
        switch value {
        case .constant(let constant): return constant
        case .copy(let key): return row[key] ?? .null
        case .not(let key):
            guard case .bool(let b) = row[key] else { return .null }
            return .bool(!b)
        case .add(let key, let amount):
            switch (row[key], amount) {
            case (.int(let x), .int(let y)): return .int(x + y)
            case (.double(let x), .double(let y)): return .double(x + y)
            case (.double(let x), .int(let y)): return .double(x + Double(y))
            default: return .null
            }
        }
    }

    /// Applies `operation` through a context: fetch, change or delete, save.
    static func applyInContext(_ operation: Operation, store: PersistentStore) throws {
        let context = ObjectContext(store: store)
        try context.performAndWait {
            switch operation {
            case .update(let request):
                let objects = try context.fetch(FetchRequest(entityName: request.entityName, predicate: request.predicate))
                for object in objects {
                    let before = try object.committedValues()
                    let after = request.propertiesToUpdate.mapValues { evaluate($0, on: before) }
                    try object.setValues(after)
                }
            case .delete(let request):
                for object in try context.fetch(FetchRequest(entityName: request.entityName, predicate: request.predicate)) {
                    context.delete(object)
                }
            }
            try context.save()
        }
    }

    /// Random rows for three lists and their items.
    static func seedRows(_ rng: inout SplitMix64) -> (lists: [[String: AttributeValue]], items: [[String: AttributeValue]]) {
        let lists: [[String: AttributeValue]] = (0..<3).map { ["title": .string("L\($0)")] }
        let items: [[String: AttributeValue]] = (0..<(200 + Int(rng.next() % 2_000))).map { i in
            var row: [String: AttributeValue] = [
                "name": .string("item \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(rng.next() % 100_000))),
                "done": .bool(rng.next() % 2 == 0), "priority": .int(Int64(rng.next() % 11)),
            ]
            if rng.next() % 4 != 0 { row["count"] = .int(Int64(rng.next() % 300)) }
            if rng.next() % 3 != 0 { row["score"] = .double(Double(rng.next() % 1000) / 1000) }
            if rng.next() % 2 == 0 { row["note"] = .string("n\(rng.next() % 10)") }
            if rng.next() % 5 != 0 { row["list"] = .int(Int64(1 + rng.next() % 3)) }
            return row
        }
        return (lists, items)
    }

    @Test func batchRequestsMatchContextSaves() throws {
        let seeds = testKnob("STRATA_BATCH_EQ_SEEDS", default: 16)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        for seed in base..<base + UInt64(seeds) {
            var rng = SplitMix64(seed: seed)
            let replay = "seed \(seed) (STRATA_SEED=\(seed) STRATA_BATCH_EQ_SEEDS=1 replays it)"
            let dirs = (try TemporaryDirectory(), try TemporaryDirectory())
            defer { dirs.0.remove(); dirs.1.remove() }
            var batch = try PersistentStore.open(at: dirs.0.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
            var saved = try PersistentStore.open(at: dirs.1.path, schema: Self.schemaWithoutRules, options: BatchFixture.options())
            let rows = Self.seedRows(&rng)
            for store in [batch, saved] {
                try BatchFixture.insert(store, "TodoList", rows.lists)
                try BatchFixture.insert(store, "TodoItem", rows.items)
            }
            #expect(BatchFixture.dump(batch) == BatchFixture.dump(saved), "\(replay): same seed data")
            for step in 0..<(2 + Int(rng.next() % 4)) {
                let operation = Self.randomOperation(&rng)
                switch operation {
                case .update(let request): _ = try batch.execute(request)
                case .delete(let request): _ = try batch.execute(request)
                }
                try Self.applyInContext(operation, store: saved)
                let same = BatchFixture.dump(batch) == BatchFixture.dump(saved)
                #expect(same, "\(replay), step \(step): \(operation)")
                if !same { break }
            }
            let expected = BatchFixture.dump(saved)
            try batch.close()
            try saved.close()
            batch = try PersistentStore.open(at: dirs.0.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
            saved = try PersistentStore.open(at: dirs.1.path, schema: Self.schemaWithoutRules, options: BatchFixture.options())
            #expect(BatchFixture.dump(batch) == expected, "\(replay): batch store after replay")
            #expect(BatchFixture.dump(saved) == expected, "\(replay): context store after replay")
            try batch.close()
            try saved.close()
        }
    }
}
