import Foundation
import Testing
@testable import Strata

/// Results made in full keep their objects and let go of what making them needed (the IDs,
/// the fetch's places): their count and IDs then come from the objects, and must not change.
@Suite struct FetchedResultsIDsTests {
    @Test(arguments: [0, 4])
    func theIDsAndCountAreTheFetchsWithOrWithoutABatchSize(batchSize: Int) throws {
        try ObjectRegistryTests.withPeople(10) { harness, reader throws in
            try reader.performAndWait { () throws in
                let inserted = try reader.insert("Person")
                try inserted.setValues(["name": "new", "age": 5])
                var request = try FetchRequest("Person", "age >= 3", sort: [SortKey("age"), SortKey("name")])
                request.fetchBatchSize = batchSize
                let results = try reader.fetch(request)
                let expected = try reader.fetchObjectIDs(request)
                #expect(results.count == 8)
                #expect(results.objectIDs == expected)
                #expect(results.map(\.objectID) == expected)
                #expect(results.objectIDs.contains(inserted.objectID))
                #expect(try results.map { try $0.string("name") ?? "" } == ["n3", "n4", "n5", "new", "n6", "n7", "n8", "n9"])
            }
        }
    }
}
