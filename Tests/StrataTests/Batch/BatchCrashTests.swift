import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// A crash during or after a batch record: recovery gives all of it or none of it, and
/// all of it once the request returned.
///
/// Knobs: `STRATA_BATCH_CRASH_POINTS` (calls after the start of the request to crash at,
/// default 8), `STRATA_BATCH_POWER_SEEDS` (power-loss images per point, default 3),
/// `STRATA_SEED` (first seed).
@Suite struct BatchCrashTests {
    static let directory = "/store"

    /// One batch request (or a batch followed by a context save) run against a store.
    struct Workload: Sendable {
        var name: String
        var run: @Sendable (PersistentStore) throws -> Void
    }

    static let workloads: [Workload] = [
        Workload(name: "update") { store in
            _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "priority < 6"),
                                                     propertiesToUpdate: ["done": .not("done"), "priority": .add("priority", 2), "note": .constant("batched")]))
        },
        Workload(name: "delete") { store in
            _ = try store.execute(BatchDeleteRequest(entityName: "TodoList", predicate: try ObjectPredicate(format: "title == 'A'")))
        },
        Workload(name: "insert") { store in
            _ = try store.execute(BatchInsertRequest(entityName: "TodoItem", count: 1_500) { i, row in
                row["name"] = .string("new \(i)"); row["createdAt"] = .date(Date(timeIntervalSince1970: 1e6 + Double(i)))
            })
        },
        Workload(name: "update then save") { store in
            _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["count": .constant(7)]))
            let context = ObjectContext(store: store)
            try context.performAndWait {
                let item = try context.insert("TodoItem")
                try item.setValues(["name": "after", "createdAt": .date(Date(timeIntervalSince1970: 5))])
                try context.fetch(FetchRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "priority == 1"))).forEach { try $0.setValue(9, forKey: "count") }
                try context.save()
            }
        },
    ]

    /// A simulated disk holding a closed store with two lists and 2,200 items.
    static func baseImage() throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: directory, schema: BatchFixture.todoSchema, options: BatchFixture.options(fs))
        let lists = try BatchFixture.insert(store, "TodoList", [["title": "A"], ["title": "B"]])
        try BatchFixture.insert(store, "TodoItem", (0..<2_200).map { i in
            ["name": .string("item \(i)"), "createdAt": .date(Date(timeIntervalSince1970: Double(i))),
             "priority": .int(Int64(i % 11)), "list": .int(lists[i % 2].primaryKey)]
        })
        try store.close()
        return fs.processCrashImage()
    }

    /// The store's rows on `fs`, as reopened (strict recovery).
    static func recoveredState(_ fs: SimulatedFileSystem) throws -> [String: [Int64: [String: AttributeValue]]] {
        let store = try PersistentStore.open(at: directory, schema: BatchFixture.todoSchema, options: BatchFixture.options(fs))
        defer { try? store.close() }
        return BatchFixture.dump(store)
    }

    @Test(arguments: workloads.indices)
    func crashDuringOrAfterABatchRecordRecoversAllOrNothing(_ index: Int) throws {
        let workload = Self.workloads[index]
        let points = testKnob("STRATA_BATCH_CRASH_POINTS", default: 8)
        let powerSeeds = testKnob("STRATA_BATCH_POWER_SEEDS", default: 3)
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        let image = try Self.baseImage()
        let before = try Self.recoveredState(image.processCrashImage())
        // The state with the workload fully applied, and the intermediate states it may
        // legitimately stop at (after the batch, before the save).
        var allowed = [before]
        do {
            let fs = image.processCrashImage()
            let store = try PersistentStore.open(at: Self.directory, schema: BatchFixture.todoSchema, options: BatchFixture.options(fs))
            if workload.name == "update then save" {
                _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["count": .constant(7)]))
                allowed.append(BatchFixture.dump(store))
            }
            try store.close()
        }
        let after: [String: [Int64: [String: AttributeValue]]]
        do {
            let fs = image.processCrashImage()
            let store = try PersistentStore.open(at: Self.directory, schema: BatchFixture.todoSchema, options: BatchFixture.options(fs))
            try workload.run(store)
            after = BatchFixture.dump(store)
            try store.close()
            #expect(try Self.recoveredState(fs) == after, "\(workload.name): a clean reopen replays the batch")
        }
        #expect(after != before)
        allowed.append(after)

        for point in 1...points {
            let fs = image.processCrashImage()
            let store = try PersistentStore.open(at: Self.directory, schema: BatchFixture.todoSchema, options: BatchFixture.options(fs))
            fs.crash(atCall: fs.callCount + point)
            let acknowledged = (try? workload.run(store)) != nil
            try? store.close()
            let context = "\(workload.name), crash at call +\(point) (STRATA_BATCH_CRASH_POINTS=\(point))"
            let process = try Self.recoveredState(fs.processCrashImage())
            #expect(allowed.contains(process), "\(context), process crash: a partial batch was recovered")
            if acknowledged { #expect(process == after, "\(context): acknowledged but lost") }
            for seed in base..<base + UInt64(powerSeeds) {
                let state = try Self.recoveredState(fs.powerLossImage(seed: seed))
                #expect(allowed.contains(state), "\(context), power loss seed \(seed) (STRATA_SEED=\(seed)): a partial batch was recovered")
                if acknowledged { #expect(state == after, "\(context), power loss seed \(seed): acknowledged but lost") }
            }
        }
    }
}
