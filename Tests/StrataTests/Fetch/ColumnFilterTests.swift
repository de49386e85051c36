import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// The compiled column path (``ColumnFilter``) and chunk skipping (``ChunkSkipper``) agree
/// with the reference evaluator on every row of every chunk.
///
/// Knob: `STRATA_FETCH_CASES` scales the number of predicates; `STRATA_FETCH_SEED` replays.
@Suite struct ColumnFilterTests {
    /// A saved store of `people` random people (clustered or not), plus hand-picked edge
    /// rows: nil everywhere, -0.0, ±infinity, NaN, integers past 2^53.
    static func withStore(seed: UInt64, people: Int, clustered: Bool,
                          _ body: (PersistentStore, ObjectContext, inout SplitMix64) throws -> Void) throws {
        print("ColumnFilterTests: seed \(seed) (replay with STRATA_FETCH_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            _ = try FetchRandom.populate(context, people: people, pets: 0, clustered: clustered, &rng)
            for score in [Double.nan, -0.0, 0.0, .infinity, -.infinity] {
                try FetchFixtures.person(context, ["name": "edge", "score": .double(score), "age": 9_007_199_254_740_993, "active": false])
            }
            try FetchFixtures.person(context, ["name": "nils"])
            try context.save()
            try body(harness.store, context, &rng)
        }
    }

    /// For `bound`: whether it compiled, and checks every chunk's mask and skip decision
    /// against the reference evaluator over `RowSubject`.
    @discardableResult
    static func agree(_ bound: BoundPredicate, _ store: PersistentStore, _ label: String) -> Bool {
        let version = store.currentVersion
        let layout = store.layouts[store.layoutIndex["Person"]!]
        let table = version.tables[layout.index]
        let filter = ColumnFilter.compile(bound.root, layout: layout)
        let skipper = ChunkSkipper(bound: bound, layout: layout)
        for (c, chunk) in table.chunks.enumerated() {
            let expected = (0..<chunk.count).map { row in
                bound.evaluate(with: RowSubject(version: version, table: layout.index, location: (c, row)))
            }
            if let filter {
                let mask = filter.evaluate(chunk)
                if mask != expected {
                    let wrong = mask.indices.filter { mask[$0] != expected[$0] }
                    let samples = wrong.prefix(3).map { row in
                        layout.properties.map { "\($0.name)=\(table.value(layout.propertyIndex[$0.name]!, at: (c, row)))" }.joined(separator: " ")
                    }
                    Issue.record("\(label): compiled mask differs on \(wrong.count) rows of chunk \(c), e.g. \(samples)")
                }
            }
            if skipper.canSkip(chunk) {
                #expect(!expected.contains(true), "\(label): chunk \(c) skipped but has matches")
            }
        }
        return filter != nil
    }

    @Test(arguments: [true, false]) func compiledMasksMatchTheReference(clustered: Bool) throws {
        let fixed = testKnob("STRATA_FETCH_SEED", default: -1)
        let seed = fixed >= 0 ? UInt64(fixed) : UInt64.random(in: 0...UInt64(Int.max))
        try Self.withStore(seed: seed, people: 2_600, clustered: clustered) { store, _, rng throws in
            var compiled = 0
            let count = 25 * testKnob("STRATA_FETCH_CASES", default: 3)
            for i in 0..<count {
                let predicate = FetchRandom.predicate(&rng, depth: 2, scale: 340)
                let bound = try predicate.bound(to: "Person", in: store.schema)
                if Self.agree(bound, store, "seed \(seed) #\(i) \(predicate.predicateFormat)") { compiled += 1 }
            }
            #expect(compiled > count / 4, "most random predicates should compile (\(compiled) of \(count))")
        }
    }

    /// Hand-picked comparisons around the edges: nil in lists, mixed int/double constants,
    /// integers a double cannot hold, NaN, -0.0, infinities, dates, booleans.
    @Test func edgeCasesMatchTheReference() throws {
        let formats = [
            "score IN {nil, 0}", "score IN {nil}", "active IN {nil}", "active IN {nil, YES}", "age IN {nil, 5}",
            "score == 0", "score == -0.0", "score != 0", "score < 1e308", "score != nil",
            "score BETWEEN {-0.0, 0}", "score IN {0.0, 100}", "score > 9007199254740993", "score == 9007199254740993",
            "age == 9007199254740992.0", "age > 9007199254740992.0", "age == 9007199254740993", "age != 9007199254740993",
            "age < 100.5", "age BETWEEN {99.5, 200}", "age BETWEEN {200, 100}", "age BETWEEN {100, 100}",
            "age BETWEEN {-9223372036854775807, 9223372036854775807}", "age BETWEEN {9007199254740993, 9223372036854775807}",
            "age BETWEEN {-9223372036854775807, 9007199254740992}", "age BETWEEN {9223372036854775807, -9223372036854775807}", "age IN {1, 2.0, 3.5}", "age IN {}",
            "active == NO", "active != YES", "active == nil", "NOT active == YES", "#size IN {0, 1}", "#size > -1.5",
            "born < %@", "born BETWEEN {%@, %@}", "born != nil AND born >= %@",
            "NOT (age > 10 OR score < 5)", "age >= 100 AND age <= 200", "age == nil OR age > 300",
            "TRUEPREDICATE", "FALSEPREDICATE", "NOT FALSEPREDICATE AND score != 0.5",
        ]
        try Self.withStore(seed: 7, people: 2_100, clustered: true) { store, _, _ throws in
            let date = FetchFixtures.day(30)
            for format in formats {
                let arguments = Array(repeating: date, count: format.components(separatedBy: "%@").count - 1)
                let bound = try ObjectPredicate(format: format, arguments: arguments).bound(to: "Person", in: store.schema)
                #expect(Self.agree(bound, store, format), "\(format) should compile")
            }
        }
    }

    /// The same predicates through a fetch, once compiled and once forced through the
    /// reference path (ANDed with `name CONTAINS ''`, true for every row but not compiled).
    @Test func fetchThroughCompiledAndFallbackPathsAgree() throws {
        let fixed = testKnob("STRATA_FETCH_SEED", default: -1)
        let seed = fixed >= 0 ? UInt64(fixed) : UInt64.random(in: 0...UInt64(Int.max))
        try Self.withStore(seed: seed, people: 2_600, clustered: true) { store, context, rng throws in
            let always = ObjectPredicate.comparison(.init(.keyPath(["name"]), .contains, .constant(.string(""))))
            for i in 0..<(6 * testKnob("STRATA_FETCH_CASES", default: 3)) {
                let predicate = FetchRandom.predicate(&rng, depth: 2, scale: 340)
                let fast = FetchRequest(entityName: "Person", predicate: predicate)
                let slow = FetchRequest(entityName: "Person", predicate: .and(predicate, always))
                #expect(try FetchPlan(slow, store: store).filter == nil)
                #expect(try context.keys(fast) == context.keys(slow), "seed \(seed) #\(i) \(predicate.predicateFormat)")
            }
        }
    }
}
