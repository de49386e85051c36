import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// With and without indexes, every fetch returns the same objects in the same order: two
/// stores receive the same random saves, batch updates, batch inserts and batch deletes,
/// are closed and reopened (after a checkpoint, or from the log alone) in between, and
/// answer the same random requests. The indexed store's indexes must also equal indexes
/// rebuilt from its rows after every step. A third store, indexed too, builds every index
/// a fetch wants in the background (as a large table does): its answers must be the same
/// whether a build has finished, is under way during the saves, or was taken over by a
/// newer version.
///
/// Knobs: `STRATA_INDEX_CASES` (seeds, default 2), `STRATA_INDEX_ROUNDS` (rounds per seed,
/// default 6), `STRATA_INDEX_ROWS` (people at the start, default 1,500 — two chunks),
/// `STRATA_INDEX_SEED` (replay one seed printed by a failure).
@Suite struct IndexPropertyTests {
    static let cases = testKnob("STRATA_INDEX_CASES", default: 2)
    static let rounds = testKnob("STRATA_INDEX_ROUNDS", default: 6)
    static let rows = testKnob("STRATA_INDEX_ROWS", default: 1_500)

    /// The fetch tests' schema with indexes on Person: every orderable attribute, the
    /// to-one `team`, and a compound one.
    static let indexedSchema: Schema = {
        var schema = FetchFixtures.schema
        let person = schema.entities.firstIndex { $0.name == "Person" }!
        schema.entities[person].indexes = [["age"], ["score"], ["born"], ["name"], ["active"], ["size"], ["team"],
                                           ["nickname", "age"]]
        let pet = schema.entities.firstIndex { $0.name == "Pet" }!
        schema.entities[pet].indexes = [["owner"], ["age"]]
        return try! schema.validated()
    }()

    /// Three stores, the same operations: plain, indexed, and indexed with every index a
    /// fetch wants built in the background.
    final class Pair {
        let plain = try! TemporaryDirectory(prefix: "strata-index-plain")
        let indexed = try! TemporaryDirectory(prefix: "strata-index-indexed")
        let background = try! TemporaryDirectory(prefix: "strata-index-background")
        var stores: [PersistentStore] = []

        init() throws { try open() }

        func open() throws {
            var options = PersistentStore.Options()
            options.backgroundIndexBuildMinimumRows = 1
            stores = [try PersistentStore.open(at: plain.path, schema: FetchFixtures.schema),
                      try PersistentStore.open(at: indexed.path, schema: IndexPropertyTests.indexedSchema),
                      try PersistentStore.open(at: background.path, schema: IndexPropertyTests.indexedSchema, options: options)]
        }

        func reopen(checkpoint: Bool) throws {
            for store in stores {
                if checkpoint { _ = try store.checkpoint() }
                try store.close()
            }
            try open()
        }

        func close() {
            for store in stores { try? store.close() }
            plain.remove()
            indexed.remove()
            background.remove()
        }
    }

    /// Every index of the indexed store equals one rebuilt from the rows.
    static func checkIndexes(_ store: PersistentStore, _ label: String) {
        let version = store.currentVersion
        for table in version.tables {
            for lazy in table.indexes {
                #expect(lazy.describes(table.chunks), "\(label): index \(lazy.properties) of \(table.layout.entity.name) is stale")
                // A pending index has nothing to check until a reader builds it.
                guard lazy.isBuilt else { continue }
                let index = lazy.index(for: table)
                let rebuilt = TableIndex(properties: index.properties, table: table)
                let got = index.leaves.flatMap(\.entries), expected = rebuilt.leaves.flatMap(\.entries)
                #expect(got.count == expected.count && zip(got, expected).allSatisfy { IndexEntry.same($0, $1) },
                        "\(label): index \(index.properties) of \(table.layout.entity.name) differs from its rebuild (\(got.count) vs \(expected.count) entries)")
            }
        }
        // Key probes (`age == 5`, `name == 'cy'`) hash their index's keys: those too.
        KeyProbeHashTests.checkHashedKeys(store, label)
    }

    /// Random requests: every store gives the same keys in the same order, and the same count.
    static func compare(_ pair: Pair, _ rng: inout SplitMix64, requests: Int, label: String) throws {
        let contexts = pair.stores.map { ObjectContext(store: $0, name: "index-tests") }
        let scale = Int64(rows / 8 + 20)
        for i in 0..<requests {
            var request = FetchRandom.request(&rng, scale: scale, rows: rows)
            if FetchRandom.chance(0.3, &rng) {
                // Plain point and range lookups, which the planner serves from an index.
                let formats = [
                    "age == \(Int.random(in: -5...300, using: &rng))", "age BETWEEN {\(Int.random(in: 0...100, using: &rng)), \(Int.random(in: 100...300, using: &rng))}",
                    "name IN {'ann', 'Bob', 'zed'}", "score >= \(Int.random(in: -20...300, using: &rng)) AND #size == 1",
                    "nickname == 'Al' AND age > 10", "active == YES", "age IN {3, 50, 120, 7} OR name == 'cy'",
                    "name BEGINSWITH '\(FetchRandom.pick(["a", "B", "an", "Bo", "z", "é", "Ev", "e"], &rng))'",
                ]
                request.predicate = FetchRandom.chance(0.15, &rng)
                    ? try ObjectPredicate(format: "born < %@", FetchFixtures.day(Double(Int.random(in: -50...150, using: &rng))))
                    : try ObjectPredicate(format: FetchRandom.pick(formats, &rng))
                if !request.predicate!.predicateFormat.contains(" OR ") {
                    // An index can serve these on the indexed store; the planner uses it when its
                    // estimate beats the scan's (a point lookup of one age always does).
                    let strategy = try pair.stores[1].fetchStrategy(request)
                    #expect(strategy.lookupIndex != nil || strategy.rejectedIndex != nil, "\(request.predicate!.predicateFormat)")
                    if request.predicate!.predicateFormat.hasPrefix("age == ") { #expect(strategy.lookupIndex == ["age"]) }
                    #expect(try pair.stores[0].fetchStrategy(request).lookupIndex == nil)
                }
                if FetchRandom.chance(0.5, &rng) { request.sortKeys = [SortKey(FetchRandom.pick(["age", "score", "born", "name"], &rng), ascending: Bool.random(using: &rng))] }
            }
            let results = try contexts.map { context in try context.performAndWait { try context.keys(request) } }
            let counts = try contexts.map { context in try context.performAndWait { try context.count(for: request) } }
            let what = "\(label) #\(i): \(request.predicate?.predicateFormat ?? "<all>") sort \(request.sortKeys.map { "\($0.key)\($0.ascending ? "↑" : "↓")\($0.caseInsensitive ? "ci" : "")" }) offset \(request.fetchOffset) limit \(request.fetchLimit)"
            #expect(results[1] == results[0], "\(what)\n indexed \(results[1].prefix(12))…\n plain   \(results[0].prefix(12))…")
            #expect(counts[1] == counts[0], "count: \(what)")
            #expect(results[2] == results[0], "built in the background: \(what)\n indexed \(results[2].prefix(12))…\n plain   \(results[0].prefix(12))…")
            #expect(counts[2] == counts[0], "count, built in the background: \(what)")
        }
    }

    /// One random batch request, run on both stores.
    static func batch(_ pair: Pair, _ rng: inout SplitMix64) throws {
        let threshold = Int.random(in: 0...300, using: &rng)
        switch Int.random(in: 0...2, using: &rng) {
        case 0:
            let request = BatchUpdateRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age BETWEEN {-1000, \(threshold)}"),
                                             propertiesToUpdate: ["age": .add("age", .int(Int64.random(in: -50...50, using: &rng))),
                                                                  "name": .constant(.string(FetchRandom.pick(FetchRandom.names, &rng)))])
            for store in pair.stores { _ = try store.execute(request) }
        case 1:
            let request = BatchDeleteRequest(entityName: "Person", predicate: try ObjectPredicate(format: "age > \(threshold) AND #size == \(Int.random(in: -3...3, using: &rng))"))
            for store in pair.stores { _ = try store.execute(request) }
        default:
            var objects: [[String: AttributeValue]] = []
            for i in 0..<Int.random(in: 1...300, using: &rng) { objects.append(FetchRandom.personValues(i, clustered: false, &rng)) }
            let request = BatchInsertRequest(entityName: "Person", objects: objects)
            for store in pair.stores { _ = try store.execute(request) }
        }
    }

    static func run(seed: UInt64) throws {
        print("IndexPropertyTests: seed \(seed) (replay with STRATA_INDEX_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let pair = try Pair()
        defer { pair.close() }
        // The same seed drives the data of both stores, so they allocate the same keys.
        var model = FetchModel()
        for store in pair.stores {
            var dataRNG = SplitMix64(seed: seed &+ 1)
            let context = ObjectContext(store: store, name: "populate")
            model = try context.performAndWait {
                try FetchRandom.populate(context, people: rows, pets: rows / 4, clustered: false, &dataRNG)
            }
        }
        checkIndexes(pair.stores[1], "seed \(seed) populated")
        checkIndexes(pair.stores[2], "seed \(seed) populated, background")
        try compare(pair, &rng, requests: 20, label: "seed \(seed) populated")
        for round in 0..<rounds {
            let stepSeed = rng.next()
            // Every store gets the same mutations, picked from the same model.
            let before = model
            for store in pair.stores {
                var stepRNG = SplitMix64(seed: stepSeed)
                var copy = before
                let context = ObjectContext(store: store, name: "mutate")
                try context.performAndWait {
                    try FetchRandom.mutate(context, &copy, steps: Int.random(in: 1...60, using: &stepRNG), &stepRNG)
                    try context.save()
                }
                model = copy
            }
            if FetchRandom.chance(0.7, &rng) { try batch(pair, &rng) }
            // The model no longer follows batch requests; only the two stores are compared.
            model = try Self.model(of: pair.stores[0])
            checkIndexes(pair.stores[1], "seed \(seed) round \(round)")
            checkIndexes(pair.stores[2], "seed \(seed) round \(round), background")
            try compare(pair, &rng, requests: 15, label: "seed \(seed) round \(round)")
            if FetchRandom.chance(0.5, &rng) {
                try pair.reopen(checkpoint: Bool.random(using: &rng))
                checkIndexes(pair.stores[1], "seed \(seed) round \(round) reopened")
                checkIndexes(pair.stores[2], "seed \(seed) round \(round) reopened, background")
                try compare(pair, &rng, requests: 10, label: "seed \(seed) round \(round) reopened")
            }
        }
    }

    /// The keys of the people, teams and pets of `store` (the values do not matter to
    /// ``FetchRandom/mutate``, which only picks keys from the model).
    static func model(of store: PersistentStore) throws -> FetchModel {
        var model = FetchModel()
        for row in try store.fetchRows(FetchRequest(entityName: "Person")).rows {
            model.people[row.primaryKey] = .init(values: [:], team: nil)
        }
        for row in try store.fetchRows(FetchRequest(entityName: "Team")).rows {
            model.teams[row.primaryKey] = .init(title: "", rank: nil)
        }
        for row in try store.fetchRows(FetchRequest(entityName: "Pet")).rows {
            model.pets[row.primaryKey] = .init(name: "", age: nil, owner: nil)
        }
        return model
    }

    @Test func indexedAndPlainStoresAnswerAlike() throws {
        let fixed = testKnob("STRATA_INDEX_SEED", default: -1)
        for _ in 0..<(fixed >= 0 ? 1 : Self.cases) {
            try Self.run(seed: fixed >= 0 ? UInt64(fixed) : UInt64.random(in: 0...UInt64(Int.max)))
        }
    }
}
