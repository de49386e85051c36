import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// A crash during or after an upsert batch insert (a batch-insert record holding updates and
/// inserts) or an `.objectTrump` save that merged into stored rows: recovery gives all of
/// it or none of it, all of it once the call returned, and never two rows sharing an email.
///
/// Knobs: `STRATA_BATCH_CRASH_POINTS` (calls after the start to crash at, default 8),
/// `STRATA_BATCH_POWER_SEEDS` (power-loss images per point, default 3), `STRATA_SEED`.
@Suite struct UpsertCrashTests {
    static let directory = "/store"

    static let workloads: [(name: String, run: @Sendable (PersistentStore) throws -> Void)] = [
        ("upsert batch", { store in
            var request = BatchInsertRequest(entityName: "Person", count: 1_500) { i, row in
                // Even rows hit stored people (p0…p1498), odd ones are new.
                row["email"] = .string(i % 2 == 0 ? "p\(i)@x" : "new\(i)@x")
                row["n"] = .int(Int64(1_000 + i))
            }
            request.mode = .upsert
            _ = try store.execute(request)
        }),
        ("objectTrump save", { store in
            let context = ObjectContext(store: store)
            context.mergePolicy = .objectTrump
            try context.performAndWait {
                for i in 0..<40 { try context.insert("Person").setValues(["email": .string("p\(i * 3)@x"), "name": "merged"]) }
                try context.save()
            }
        }),
    ]

    static func options(_ fs: SimulatedFileSystem) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        options.storage.fileSystem = fs
        return options
    }

    static func baseImage() throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: directory, schema: UniquenessFixtures.people, options: options(fs))
        _ = try store.execute(BatchInsertRequest(entityName: "Person", count: 2_000) { i, row in
            row["email"] = .string("p\(i)@x")
            row["name"] = .string("person \(i)")
        })
        try store.close()
        return fs.processCrashImage()
    }

    static func recovered(_ fs: SimulatedFileSystem) throws -> [Int64: UniquenessFixtures.Row] {
        let store = try PersistentStore.open(at: directory, schema: UniquenessFixtures.people, options: options(fs))
        defer { try? store.close() }
        let rows = UniquenessFixtures.rows(store)
        let emails = rows.values.compactMap(\.email)
        #expect(Set(emails).count == emails.count, "two recovered rows share an email")
        return rows
    }

    @Test(arguments: workloads.indices)
    func crashDuringOrAfterAnUpsertRecoversAllOrNothing(_ index: Int) throws {
        let workload = Self.workloads[index]
        let points = testKnob("STRATA_BATCH_CRASH_POINTS", default: 8)
        let powerSeeds = testKnob("STRATA_BATCH_POWER_SEEDS", default: 3)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        let image = try Self.baseImage()
        let before = try Self.recovered(image.processCrashImage())
        let after: [Int64: UniquenessFixtures.Row]
        do {
            let fs = image.processCrashImage()
            let store = try PersistentStore.open(at: Self.directory, schema: UniquenessFixtures.people, options: Self.options(fs))
            try workload.run(store)
            after = UniquenessFixtures.rows(store)
            try store.close()
            #expect(try Self.recovered(fs) == after, "\(workload.name): a clean reopen replays it")
        }
        #expect(after != before)
        for point in 1...points {
            let fs = image.processCrashImage()
            let store = try PersistentStore.open(at: Self.directory, schema: UniquenessFixtures.people, options: Self.options(fs))
            fs.crash(atCall: fs.callCount + point)
            let acknowledged = (try? workload.run(store)) != nil
            try? store.close()
            let place = "\(workload.name), crash at call +\(point) (STRATA_BATCH_CRASH_POINTS=\(point))"
            let process = try Self.recovered(fs.processCrashImage())
            #expect(process == before || process == after, "\(place), process crash: a partial transaction was recovered")
            if acknowledged { #expect(process == after, "\(place): acknowledged but lost") }
            for seed in base..<base + UInt64(powerSeeds) {
                let state = try Self.recovered(fs.powerLossImage(seed: seed))
                #expect(state == before || state == after, "\(place), power loss seed \(seed) (STRATA_SEED=\(seed)): a partial transaction was recovered")
                if acknowledged { #expect(state == after, "\(place), power loss seed \(seed): acknowledged but lost") }
            }
        }
    }
}
