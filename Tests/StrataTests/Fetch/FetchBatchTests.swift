import Foundation
import Testing
@testable import Strata

/// `fetchBatchSize` (objects materialize one batch at a time, so only a batch is alive)
/// and `returnsObjectsAsFaults`.
@Suite struct FetchBatchTests {
    /// 100 saved people named n0…n99, read from a fresh context (nothing registered).
    static func withPeople(_ body: (ObjectContext) throws -> Void) throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            for i in 0..<100 { try FetchFixtures.person(context, ["name": .string("n\(i)"), "age": .int(Int64(i))]) }
            try context.save()
        }
        let reader = harness.newContext("reader")
        try reader.performAndWait { try body(reader) }
    }

    @Test func objectsMaterializeOneBatchAtATime() throws {
        try Self.withPeople { context throws in
            var request = try FetchRequest("Person", sort: [SortKey("age")])
            request.fetchBatchSize = 20
            let results = try context.fetch(request)
            #expect(results.count == 100)
            #expect(context.registeredObjects.isEmpty, "no object before the first access")
            let first = results[0]
            #expect(try first.string("name") == "n0")
            #expect(context.registeredObjects.count == 20)
            #expect(results[19].objectID.primaryKey == 20 && context.registeredObjects.count == 20)
            let later = results[45]
            #expect(try later.string("name") == "n45")
            // The first batch is gone except the object still held here.
            let alive = Set(context.registeredObjects.map(\.objectID.primaryKey))
            #expect(alive == Set(41...60).union([1]))
            // Reading every object keeps at most one batch (plus what the caller holds) alive.
            var names: [String] = []
            for object in results {
                names.append(try object.string("name") ?? "")
                #expect(context.registeredObjects.count <= 22)
            }
            #expect(names == (0..<100).map { "n\($0)" })
            _ = (first, later)
        }
    }

    @Test func withoutBatchSizeAllObjectsMaterializeAtOnce() throws {
        try Self.withPeople { context throws in
            let results = try context.fetch(try FetchRequest("Person", "age < 50"))
            #expect(results.count == 50)
            #expect(context.registeredObjects.count == 50)
            #expect(results.filter { $0.isFault }.count == 50)
            _ = results
        }
    }

    @Test(arguments: [0, 7, 20]) func faultsOrLoadedObjects(batchSize: Int) throws {
        try Self.withPeople { context throws in
            var request = try FetchRequest("Person", "age >= 90", sort: [SortKey("age", ascending: false)])
            request.fetchBatchSize = batchSize
            request.returnsObjectsAsFaults = true
            let faults = try context.fetch(request)
            #expect(faults.map(\.isFault) == Array(repeating: true, count: 10))
            #expect(try faults.map { try $0.int("age") } == (90...99).reversed().map { Int64($0) })
            let other = ObjectContext(store: context.store, name: "loaded")
            try other.performAndWait { () throws in
                request.returnsObjectsAsFaults = false
                let loaded = try other.fetch(request)
                #expect(loaded.map(\.isFault) == Array(repeating: false, count: 10))
                #expect(loaded.map(\.objectID) == faults.map(\.objectID))
            }
        }
    }

    /// Objects of a fetch are the context's registered ones (uniquing), batch or not.
    @Test func fetchedObjectsAreUniqued() throws {
        try Self.withPeople { context throws in
            let held = context.object(with: try context.fetchObjectIDs(try FetchRequest("Person", "age == 5"))[0])
            var request = try FetchRequest("Person", "age <= 10")
            request.fetchBatchSize = 3
            let results = try context.fetch(request)
            #expect(results[5] === held)
        }
    }
}
