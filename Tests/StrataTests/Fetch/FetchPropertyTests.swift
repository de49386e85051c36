import Foundation
import PropertyBased
import StrataTestSupport
import Testing
@testable import Strata

/// Random data sets and random requests: the store's answer (IDs, order, count) must equal
/// the naive reference filter and sort over a plain model, with saved data only and with
/// unsaved changes in the context.
///
/// Knobs: `STRATA_FETCH_CASES` (data sets per test, default 3), `STRATA_FETCH_REQUESTS`
/// (requests per data set, default 25), `STRATA_FETCH_SEED` (replay
/// one seed printed by a failure).
@Suite struct FetchPropertyTests {
    static let cases = testKnob("STRATA_FETCH_CASES", default: 3)
    static let requestsPerSet = testKnob("STRATA_FETCH_REQUESTS", default: 25)

    /// The seed to run: `STRATA_FETCH_SEED` when set, else a fresh one (printed).
    static func seed(_ index: Int) -> UInt64 {
        let fixed = testKnob("STRATA_FETCH_SEED", default: -1)
        return fixed >= 0 ? UInt64(fixed) : UInt64.random(in: 0...UInt64(Int.max))
    }

    /// Compares `fetchObjectIDs`, `fetch` and `count(for:)` of `request` with the reference.
    static func check(_ context: ObjectContext, _ request: FetchRequest, _ model: FetchModel, _ label: String) throws {
        let expected = try FetchReference.keys(request, in: model)
        let format = request.predicate?.predicateFormat ?? "<all>"
        let what = "\(label): \(format) sort \(request.sortKeys.map { "\($0.key)\($0.ascending ? "↑" : "↓")\($0.caseInsensitive ? "ci" : "")" }) offset \(request.fetchOffset) limit \(request.fetchLimit) pending \(request.includesPendingChanges)"
        let got = try context.keys(request)
        #expect(got == expected, "\(what)\n got \(got.prefix(20))…\n expected \(expected.prefix(20))…")
        #expect(try context.count(for: request) == expected.count, "count: \(what)")
        if got.count < 200 {
            #expect(try context.fetch(request).map(\.objectID.primaryKey) == expected, "objects: \(what)")
        }
    }

    /// One data set: populate, then run `requestsPerSet` random requests (saved data only),
    /// then random unsaved changes and the same again with and without pending changes.
    static func run(seed: UInt64, people: Int, pets: Int, clustered: Bool, mutations: Int,
                    requests: Int = requestsPerSet) throws {
        print("FetchPropertyTests: seed \(seed) people \(people) clustered \(clustered) (replay with STRATA_FETCH_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        let scale = Int64(max(20, people / 8 + 20))
        try harness.run { context throws in
            let saved = try FetchRandom.populate(context, people: people, pets: pets, clustered: clustered, &rng)
            for i in 0..<requests {
                try check(context, FetchRandom.request(&rng, scale: scale, rows: people), saved, "seed \(seed) saved #\(i)")
            }
            guard mutations > 0 else { return }
            var pending = saved
            try FetchRandom.mutate(context, &pending, steps: mutations, &rng)
            for i in 0..<requests {
                var request = FetchRandom.request(&rng, scale: scale, rows: people)
                try check(context, request, pending, "seed \(seed) pending #\(i)")
                request.includesPendingChanges = false
                try check(context, request, saved, "seed \(seed) saved-only #\(i)")
            }
        }
    }

    @Test func smallDataSetsMatchTheReference() async throws {
        let seeds = Generator<UInt64, Shrink.None<UInt64>> { rng in UInt64.random(in: 0...UInt64(Int.max), using: &rng) }
        await propertyCheck(count: Self.cases * 4, input: seeds) { seed in
            var rng = SplitMix64(seed: seed)
            let people = Int.random(in: 0...60, using: &rng)
            try Self.run(seed: seed, people: people, pets: Int.random(in: 0...40, using: &rng),
                         clustered: Bool.random(using: &rng), mutations: Int.random(in: 0...25, using: &rng))
        }
    }

    /// Over 2,500 rows (three chunks of 1,024): chunk skipping and the compiled column
    /// filters run, on clustered (skippable) and scattered data.
    @Test(arguments: [true, false]) func largeDataSetsMatchTheReference(clustered: Bool) throws {
        for index in 0..<max(1, Self.cases / 3) {
            let seed = Self.seed(index)
            var rng = SplitMix64(seed: seed)
            try Self.run(seed: seed, people: Int.random(in: 2_600...2_900, using: &rng), pets: 100,
                         clustered: clustered, mutations: 40, requests: max(8, Self.requestsPerSet / 3))
        }
    }
}
