import Testing
import Foundation
import StrataTestSupport
@testable import Strata
import StrataStorage

/// Two ways of doing the same thing must agree: asynchronous and synchronous fetches, batch
/// requests and the same change made through a context.
///
/// Knob: `STRATA_CROSSCHECK_CASES` (default 60 random stores per property).
@Suite struct CrossCheckTests {
    static var cases: Int { testKnob("STRATA_CROSSCHECK_CASES", default: 60) }

    /// A store on a simulated disk filled by a seeded run of the model operations (no crashes).
    static func randomStore(seed: UInt64) throws -> (PersistentStore, SimulatedFileSystem) {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema,
                                             options: RobustnessSchema.options(fs))
        var rng = SplitMix64(seed: seed)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            var parents: [ManagedObject] = []
            for _ in 0..<(1 + rng.next() % 12) {
                let parent = try context.insert("Parent")
                try parent.setValues(["name": .string("p\(rng.next() % 9)"), "count": .int(Int64(rng.next() % 40) - 20), "flag": .bool(rng.next() % 2 == 0)])
                parents.append(parent)
            }
            for _ in 0..<(rng.next() % 30) {
                let child = try context.insert("Child")
                try child.setValues(["value": .int(Int64(rng.next() % 50)), "note": rng.next() % 3 == 0 ? .null : .string("n\(rng.next() % 5)")])
                if rng.next() % 4 != 0 { try child.setObject(parents[Int(rng.next() % UInt64(parents.count))], forKey: "parent") }
            }
            try context.save()
        }
        return (store, fs)
    }

    /// The same store again, on a second disk (a copy of the first).
    static func copy(of fs: SimulatedFileSystem) throws -> PersistentStore {
        try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema,
                                 options: RobustnessSchema.options(fs.processCrashImage()))
    }

    static let predicates: [(String, String)] = [
        ("Parent", "count > 0"), ("Parent", "flag == YES AND count <= 5"), ("Parent", "name BEGINSWITH 'p1' OR count < -10"),
        ("Parent", "ANY children.value > 25"), ("Parent", "children.@count >= 2"), ("Child", "value < 20"),
        ("Child", "note == nil"), ("Child", "parent.flag == YES"), ("Child", "parent == nil OR value BETWEEN {10, 30}"),
        ("Child", "TRUEPREDICATE"),
    ]

    @Test func asynchronousFetchEqualsSynchronousFetch() async throws {
        for index in 0..<Self.cases {
            let seed = UInt64(index) &+ 1
            let (store, _) = try Self.randomStore(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0xA5A5)
            for _ in 0..<4 {
                let (entity, format) = Self.predicates[Int(rng.next() % UInt64(Self.predicates.count))]
                var request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
                let sortKey = entity == "Parent" ? ["count", "name", "flag"][Int(rng.next() % 3)] : ["value", "note"][Int(rng.next() % 2)]
                request.sortKeys = [SortKey(sortKey, ascending: rng.next() % 2 == 0)]
                if rng.next() % 3 == 0 { request.fetchLimit = Int(rng.next() % 6) }
                if rng.next() % 3 == 0 { request.fetchOffset = Int(rng.next() % 4) }
                request.includesPendingChanges = false
                let context = ObjectContext(store: store)
                let asynchronous = try await context.fetchObjectIDs(request)
                let (synchronous, count) = try context.performAndWait { (try context.fetchObjectIDs(request), try context.count(for: request)) }
                #expect(asynchronous == synchronous, "seed \(seed): \(entity) [\(format)] sorted by \(sortKey), limit \(request.fetchLimit), offset \(request.fetchOffset)")
                #expect(count == synchronous.count, "seed \(seed): count(for:) of \(entity) [\(format)]")
            }
        }
    }

    @Test func batchUpdateEqualsTheSameChangeThroughAContext() throws {
        for index in 0..<Self.cases {
            let seed = UInt64(index) &+ 100
            let (store, fs) = try Self.randomStore(seed: seed)
            let twin = try Self.copy(of: fs)
            var rng = SplitMix64(seed: seed)
            let threshold = Int64(rng.next() % 30) - 15, amount = Int64(rng.next() % 5) + 1
            var request = BatchUpdateRequest(entityName: "Parent", predicate: try ObjectPredicate(format: "count >= \(threshold)"))
            request.propertiesToUpdate = ["count": .add("count", .int(amount)), "flag": .not("flag"), "name": .constant("batch")]
            request.resultType = .objectIDs
            let result = try store.execute(request)
            let context = ObjectContext(store: twin)
            let changed = try context.performAndWait {
                let matches = try context.fetch(FetchRequest(entityName: "Parent", predicate: try ObjectPredicate(format: "count >= \(threshold)")))
                for parent in matches {
                    try parent.setValues(["count": .int(try parent.int("count")! + amount), "flag": .bool(!(try parent.bool("flag")!)), "name": "batch"])
                }
                try context.save()
                return matches.map(\.objectID.primaryKey)
            }
            #expect(result.objectIDs?.map(\.primaryKey).sorted() == changed.sorted(), "seed \(seed): matched rows")
            #expect(try RobustnessSchema.visibleState(of: store) == RobustnessSchema.visibleState(of: twin), "seed \(seed): batch update vs context")
            try store.checkInvariants()
        }
    }

    @Test func batchDeleteEqualsTheSameDeleteThroughAContext() throws {
        for index in 0..<Self.cases {
            let seed = UInt64(index) &+ 200
            let (store, fs) = try Self.randomStore(seed: seed)
            let twin = try Self.copy(of: fs)
            var rng = SplitMix64(seed: seed)
            let (entity, format) = rng.next() % 2 == 0 ? ("Parent", "count < \(Int64(rng.next() % 30) - 15)") : ("Child", "value >= \(rng.next() % 50)")
            var request = BatchDeleteRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
            request.resultType = .objectIDs
            let result = try store.execute(request)
            let context = ObjectContext(store: twin)
            let before = try RobustnessSchema.visibleState(of: twin)
            try context.performAndWait {
                for object in try context.fetch(FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))) { context.delete(object) }
                try context.save()
            }
            let after = try RobustnessSchema.visibleState(of: twin)
            let gone = Set(before.parents.keys.filter { after.parents[$0] == nil }.map { "Parent \($0)" })
                .union(before.children.keys.filter { after.children[$0] == nil }.map { "Child \($0)" })
            #expect(Set(result.objectIDs?.map { "\($0.entityName) \($0.primaryKey)" } ?? []) == gone, "seed \(seed): deleted objects (cascades included) of \(entity) [\(format)]")
            #expect(try RobustnessSchema.visibleState(of: store) == after, "seed \(seed): batch delete vs context, \(entity) [\(format)]")
            try store.checkInvariants()
        }
    }

    @Test func batchInsertEqualsTheSameInsertThroughAContext() throws {
        for index in 0..<Self.cases {
            let seed = UInt64(index) &+ 300
            let (store, fs) = try Self.randomStore(seed: seed)
            let twin = try Self.copy(of: fs)
            var rng = SplitMix64(seed: seed)
            let parents = try RobustnessSchema.visibleState(of: store).parents.keys.sorted()
            let rows: [[String: AttributeValue]] = (0..<(1 + rng.next() % 6)).map { _ in
                var row: [String: AttributeValue] = ["value": .int(Int64(rng.next() % 50))]
                if rng.next() % 2 == 0 { row["note"] = .string("i\(rng.next() % 5)") }
                if rng.next() % 2 == 0 { row["parent"] = .int(parents[Int(rng.next() % UInt64(parents.count))]) }
                return row
            }
            var request = BatchInsertRequest(entityName: "Child", objects: rows)
            request.resultType = .objectIDs
            let result = try store.execute(request)
            let context = ObjectContext(store: twin)
            let inserted = try context.performAndWait {
                let objects = try rows.map { row -> ManagedObject in
                    let child = try context.insert("Child")
                    for (key, value) in row where key != "parent" { try child.setValue(value, forKey: key) }
                    if case .int(let parent)? = row["parent"] {
                        try child.setObject(try context.existingObject(with: RobustnessSchema.id(twin, "Parent", parent)), forKey: "parent")
                    }
                    return child
                }
                try context.save()
                return objects.map(\.objectID.primaryKey)
            }
            #expect(result.objectIDs?.map(\.primaryKey) == inserted, "seed \(seed): assigned keys")
            #expect(try RobustnessSchema.visibleState(of: store) == RobustnessSchema.visibleState(of: twin), "seed \(seed): batch insert vs context")
            try store.checkInvariants()
        }
    }

    /// Whatever a random run of tokens parses to prints as text that parses back to it (the
    /// fuzz target's oracle, as a deterministic sweep).
    @Test func parsedTokenSoupPrintsAndReparsesToItself() throws {
        let vocabulary = ["name", "count", "children", "parent", ".", "@count", "@sum", "value", "==", "!=", "<", ">=",
                          "AND", "OR", "NOT", "(", ")", "ANY", "ALL", "NONE", "IN", "BETWEEN", "{", "}", ",", "1", "-2",
                          "3.5", "'a'", "\"b\"", "nil", "YES", "NO", "BEGINSWITH", "CONTAINS[cd]", "LIKE", "MATCHES",
                          "TRUEPREDICATE", "FALSEPREDICATE", "$x", "SUBQUERY", "%@", "%K", "ENDSWITH[c]", "@avg", "@max"]
        var parsed = 0
        var rng = SplitMix64(seed: UInt64(testKnob("STRATA_SEED", default: 1)))
        for _ in 0..<(Self.cases * 300) {
            let text = (0..<(1 + rng.next() % 9)).map { _ in vocabulary[Int(rng.next() % UInt64(vocabulary.count))] }.joined(separator: " ")
            guard let predicate = try? ObjectPredicate(format: text) else { continue }
            parsed += 1
            let printed = predicate.predicateFormat
            let reparsed = try? ObjectPredicate(format: printed)
            #expect(reparsed == predicate, "\(text.debugDescription) printed as \(printed.debugDescription)")
        }
        #expect(parsed > 0)
    }
}
