import Foundation
import Testing
@testable import Strata

/// Faults made by a fetch remember where the fetch found their rows; firing one must still
/// read the store's newest version, whatever was committed in between.
@Suite struct FetchedFaultTests {
    @Test func aFaultFiredAfterAnotherSaveReadsTheNewValues() throws {
        try ObjectRegistryTests.withPeople(10) { harness, reader throws in
            let faults = try reader.performAndWait { () throws -> [ManagedObject] in
                Array(try reader.fetch(FetchRequest("Person", sort: [SortKey("age")])))
            }
            let id = reader.performAndWait { faults[3].objectID }
            try harness.context.performAndWait { () throws in
                try harness.context.object(with: id).setValue("changed", forKey: "name")
                try harness.context.save()
            }
            try reader.performAndWait { () throws in
                #expect(faults.allSatisfy { $0.isFault })
                #expect(try faults[3].string("name") == "changed")
                #expect(try faults[4].string("name") == "n4")
            }
        }
    }

    @Test func aFaultOfARowDeletedSinceTheFetchThrows() throws {
        try ObjectRegistryTests.withPeople(10) { harness, reader throws in
            let faults = try reader.performAndWait { () throws -> [ManagedObject] in
                Array(try reader.fetch(FetchRequest("Person", sort: [SortKey("age")])))
            }
            let id = reader.performAndWait { faults[2].objectID }
            try harness.context.performAndWait { () throws in
                harness.context.delete(harness.context.object(with: id))
                try harness.context.save()
            }
            try reader.performAndWait { () throws in
                let error = #expect(throws: StrataError.self) { try faults[2].string("name") }
                #expect(error?.code == .objectNotFound)
            }
        }
    }

    @Test func aFaultFiredWithNoSaveInBetweenReadsTheFetchedRow() throws {
        try ObjectRegistryTests.withPeople(2_500) { _, reader throws in
            try reader.performAndWait { () throws in
                var request = try FetchRequest("Person", "age >= 1000", sort: [SortKey("age", ascending: false)])
                request.fetchLimit = 1_200
                let results = try reader.fetch(request)
                #expect(results.first?.isFault == true)
                let names = try results.map { try $0.string("name") ?? "" }
                #expect(names == (1_300..<2_500).reversed().map { "n\($0)" })
                #expect(try results[0].committedValues(forKeys: ["age"])["age"] == .int(2_499))
            }
        }
    }

    @Test func changingAFiredFaultCopiesItsRowOut() throws {
        try ObjectRegistryTests.withPeople(3) { _, reader throws in
            try reader.performAndWait { () throws in
                let results = try reader.fetch(FetchRequest("Person", sort: [SortKey("age")]))
                let first = results[0], second = results[1]
                try first.setValue("renamed", forKey: "name")
                #expect(try first.string("name") == "renamed")
                #expect(try first.committedValues(forKeys: ["name"])["name"] == .string("n0"))
                #expect(try second.string("name") == "n1", "its neighbour in the same chunk is untouched")
                try reader.save()
                #expect(try first.string("name") == "renamed")
                #expect(!first.hasChanges)
            }
        }
    }
}
