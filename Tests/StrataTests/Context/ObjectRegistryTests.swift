import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The context's registry: it holds objects strongly, but one that only the context holds
/// behaves as if it were gone (a weak registry's semantics), and such objects are released
/// when what held them lets go.
@Suite struct ObjectRegistryTests {
    /// `count` saved people named n0…n(count-1) aged by index, and a fresh reader context.
    static func withPeople(_ count: Int, _ body: (FetchFixtures.Harness, ObjectContext) throws -> Void) throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        try harness.run { context throws in
            for i in 0..<count { try FetchFixtures.person(context, ["name": .string("n\(i)"), "age": .int(Int64(i))]) }
            try context.save()
        }
        try body(harness, harness.newContext("reader"))
    }

    @Test func anObjectOnlyTheContextHoldsComesBackAsAFreshFault() throws {
        try Self.withPeople(3) { harness, reader throws in
            let id = try reader.performAndWait { () throws -> ObjectID in
                let object = try reader.fetch(FetchRequest("Person", sort: [SortKey("age")]))[0]
                #expect(try object.string("name") == "n0")
                return object.objectID
            }
            // Another context changes the row; the reader holds no object for it any more.
            try harness.context.performAndWait { () throws in
                try harness.context.object(with: id).setValue("changed", forKey: "name")
                try harness.context.save()
            }
            try reader.performAndWait { () throws in
                let again = reader.object(with: id)
                #expect(again.isFault, "handed out again as a fault, as a new object would be")
                #expect(try again.string("name") == "changed")
            }
        }
    }

    @Test func anObjectStillHeldKeepsItsValuesUntilRefreshed() throws {
        try Self.withPeople(3) { harness, reader throws in
            let held = try reader.performAndWait { () throws -> ManagedObject in
                let object = try reader.fetch(FetchRequest("Person", sort: [SortKey("age")]))[0]
                #expect(try object.string("name") == "n0")
                return object
            }
            try harness.context.performAndWait { () throws in
                try harness.context.object(with: held.objectID).setValue("changed", forKey: "name")
                try harness.context.save()
            }
            try reader.performAndWait { () throws in
                #expect(reader.object(with: held.objectID) === held, "uniquing")
                #expect(try held.string("name") == "n0", "its snapshot until it is refreshed")
                reader.refresh(held, mergeChanges: false)
                #expect(try held.string("name") == "changed")
            }
        }
    }

    @Test func releasingResultsReleasesTheirObjects() throws {
        try Self.withPeople(50) { _, reader throws in
            try reader.performAndWait { () throws in
                var kept: ManagedObject?
                do {
                    let results = try reader.fetch(FetchRequest("Person"))
                    kept = results[7]
                    #expect(reader.registry.count == 50)
                }
                #expect(reader.registry.count == 1, "only the object still held stays registered")
                #expect(reader.registeredObjects.map(\.objectID) == [kept!.objectID])
            }
        }
    }

    /// Results that prefetch a relationship to their own entity: everyone's manager comes
    /// last, so were the others to hold it as prefetched, it would still be held when the
    /// results, released from the end, reach it. Every object must leave the registry.
    @Test func releasingResultsThatPrefetchEachOtherReleasesThemAll() throws {
        let schema = try Schema {
            Entity("Employee") {
                Attribute("name", .string)
                Relationship("manager", to: "Employee", inverse: "reports")
                Relationship("reports", to: "Employee", inverse: "manager", toMany: true)
            }
        }
        let fixture = try StoreFixture(schema)
        defer { fixture.remove() }
        let writer = fixture.context()
        try writer.performAndWait { () throws in
            let employees = try (0..<10).map { i throws in
                let employee = try writer.insert("Employee")
                try employee.setValue(.string("e\(i)"), forKey: "name")
                return employee
            }
            for employee in employees.dropLast() { try employee.setObject(employees[9], forKey: "manager") }
            try writer.save()
        }
        let reader = fixture.context()
        try reader.performAndWait { () throws in
            do {
                var request = FetchRequest(entityName: "Employee", sortKeys: [SortKey("name")])
                request.relationshipKeyPathsForPrefetching = ["manager"]
                let results = try reader.fetch(request)
                #expect(try results.map { try $0.string("name") } == (0..<10).map { "e\($0)" })
                #expect(reader.registry.count == 10)
            }
            #expect(reader.registry.count == 0, "every object leaves the registry with the results")
        }
    }

    @Test func savingReleasesTheObjectsNothingElseHolds() throws {
        let harness = try FetchFixtures.Harness()
        defer { harness.close() }
        let context = harness.context
        try context.performAndWait { () throws in
            var kept: ManagedObject?
            for i in 0..<100 {
                let object = try FetchFixtures.person(context, ["name": .string("n\(i)")])
                if i == 42 { kept = object }
            }
            #expect(context.registry.count == 100)
            try context.save()
            #expect(context.registry.count == 1)
            #expect(context.registeredObjects.first === kept)
        }
    }

    @Test func iteratingBatchesKeepsTheRegistryBounded() throws {
        let total = 3 * ObjectContext.minimumSweepThreshold
        try Self.withPeople(total) { _, reader throws in
            try reader.performAndWait { () throws in
                var request = try FetchRequest("Person", sort: [SortKey("age")])
                request.fetchBatchSize = 50
                let results = try reader.fetch(request)
                var largest = 0
                var ages: [Int64] = []
                for object in results {
                    ages.append(try object.int("age") ?? -1)
                    largest = max(largest, reader.registry.count)
                }
                #expect(ages == (0..<Int64(total)).map { $0 })
                #expect(largest <= 100, "each finished batch is released: \(largest) registered at most")
            }
        }
    }

    /// A fetch moves the registry's next sweep past the objects it makes (a sweep could drop
    /// none of them while the results hold them): repeated fetches must not push it further
    /// each time, or objects looked up one at a time afterwards would pile up unswept.
    @Test func repeatedFetchesKeepTheNextSweepWithinTwiceTheObjectsInUse() throws {
        let fetched = ObjectContext.minimumSweepThreshold
        let total = 6 * fetched
        try Self.withPeople(total) { _, reader throws in
            try reader.performAndWait { () throws in
                var request = try FetchRequest("Person", sort: [SortKey("age")])
                request.fetchLimit = fetched
                for _ in 0..<5 {
                    let results = try reader.fetch(request)
                    #expect(results.count == fetched)
                }
                #expect(reader.registry.isEmpty, "each fetch's objects are released with its results")
                let ids = try reader.fetchObjectIDs(FetchRequest("Person"))
                var largest = 0
                for id in ids {
                    _ = try reader.existingObject(with: id)
                    largest = max(largest, reader.registry.count)
                }
                #expect(ids.count == total)
                #expect(largest <= 2 * fetched, "\(largest) registered at most, with one object in use at a time")
            }
        }
    }

    @Test func resetInvalidatesEveryRegisteredObject() throws {
        try Self.withPeople(5) { _, reader throws in
            try reader.performAndWait { () throws in
                let objects = Array(try reader.fetch(FetchRequest("Person")))
                reader.reset()
                #expect(reader.registry.isEmpty)
                for object in objects {
                    let error = #expect(throws: StrataError.self) { try object.string("name") }
                    #expect(error?.code == .misuse)
                }
            }
        }
    }
}
