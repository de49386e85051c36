import Testing
import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Snapshot isolation: the scan reads the store version current at `execute`; commits that
/// land mid-scan (saves by this or another context, batch requests) are not in its result,
/// and a new fetch sees them.
@Suite struct AsyncFetchIsolationTests {
    @Test(arguments: [FetchRequest.ResultType.objects, .objectIDs, .count, .dictionaries])
    func commitsLandingMidScanAreNotInTheResult(_ resultType: FetchRequest.ResultType) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try AsyncFixture.makeStore(dir, count: 30_000)
        let context = ObjectContext(store: store, name: "fetching")
        let other = ObjectContext(store: store, name: "other")
        var request = FetchRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "done == NO"),
                                   sortKeys: [SortKey("createdAt")])
        request.resultType = resultType
        request.propertiesToFetch = ["name", "priority"]
        let (expectedIDs, expectedRows) = try context.performAndWait {
            (try context.fetchObjectIDs(request), try context.fetchDictionaries(request))
        }
        let (changed, deleted) = (expectedIDs[10], expectedIDs[20])
        // One the batch update below leaves alone.
        let stopped = expectedIDs[try #require((30..<expectedIDs.count).first { expectedRows[$0]["priority"] != 1 })]

        // On the first update (after the first chunk), three commits land before the scan
        // goes on: another context inserts a match, deletes one and renames one; this context
        // makes one match stop matching; a batch update makes every priority-1 item match.
        let mid = Locked<(inserted: ObjectID?, errors: [String])>((nil, []))
        let (_, outcomes) = try AsyncFixture.start(request, in: context) { index, _ in
            guard index == 0 else { return }
            do {
                let inserted = try other.performAndWait {
                    let item = try other.insert("TodoItem")
                    try item.setValues(["name": "mid-scan", "createdAt": .date(Date(timeIntervalSince1970: -5))])
                    other.delete(try other.existingObject(with: deleted))
                    try other.existingObject(with: changed).setValue("renamed", forKey: "name")
                    try other.save()
                    return item.objectID
                }
                try context.performAndWait {
                    try context.existingObject(with: stopped).setValue(true, forKey: "done")
                    try context.save()
                }
                _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", predicate: try ObjectPredicate(format: "priority == 1"),
                                                         propertiesToUpdate: ["done": .constant(false)]))
                mid.withLock { $0.inserted = inserted }
            } catch {
                mid.withLock { $0.errors.append("\(error)") }
            }
        }
        let outcome = try #require(await AsyncFixture.outcome(outcomes))
        let inserted = try #require(mid.withLock { $0.inserted }, "\(mid.withLock { $0.errors })")
        #expect(outcome.error == nil)
        switch resultType {
        case .objects: #expect(outcome.finalResultIDs == expectedIDs)
        case .objectIDs: #expect(outcome.objectIDs == expectedIDs)
        case .count: #expect(outcome.count == expectedIDs.count)
        case .dictionaries:
            // Values too are the pinned version's: the rename is not visible.
            #expect(outcome.dictionaries == expectedRows)
            #expect(outcome.dictionaries?[10]["name"] != "renamed")
        }

        // A new fetch, asynchronous or not, sees all three commits.
        let again = try #require(await AsyncFixture.outcome(try AsyncFixture.start(request, in: context).1))
        let now = try context.performAndWait { try context.fetchObjectIDs(request) }
        #expect(now.first == inserted)
        #expect(!now.contains(deleted))
        #expect(!now.contains(stopped))
        #expect(now.count > expectedIDs.count)
        switch resultType {
        case .objects: #expect(again.finalResultIDs == now)
        case .objectIDs: #expect(again.objectIDs == now)
        case .count: #expect(again.count == now.count)
        case .dictionaries: #expect(again.dictionaries?.contains { $0["name"] == "renamed" } == true)
        }
    }
}
