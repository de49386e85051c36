import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// `context.observe(request)`: current IDs, then new ones after each change that affects
/// them, and only then.
@Suite struct LiveQueryIDTests {
    /// The first `count` elements of `stream`, or fewer if the failsafe `timeout` passes.
    static func prefix(_ stream: AsyncThrowingStream<[ObjectID], any Error>, _ count: Int,
                       timeout: Duration = .seconds(60)) async throws -> [[ObjectID]] {
        try await withThrowingTaskGroup(of: [[ObjectID]]?.self) { group in
            group.addTask {
                var seen: [[ObjectID]] = []
                for try await ids in stream {
                    seen.append(ids)
                    if seen.count == count { break }
                }
                return seen
            }
            group.addTask { try await Task.sleep(for: timeout); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    @Test func yieldsOnlyWhenTheResultsChange() async throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 6, seed: 0)
        let view = fixture.context("view")
        let request = FetchRequest(entityName: "Task", predicate: try ObjectPredicate(format: "rank >= 5"), sortKeys: [SortKey("rank")])
        let stream = view.observe(request)
        let initial = try ObservingFixture.fresh(request, in: view, sectionKey: nil).ids
        // A change outside the results (a row that does not match before or after)...
        let outside = try #require(try view.performAndWait { try ids.first { try view.existingObject(with: $0).int("rank")! < 5 } })
        try writer.performAndWait {
            try writer.object(with: outside).setValue("unrelated", forKey: "title")
            try writer.save()
        }
        // ...then one that brings a row in.
        try writer.performAndWait {
            try writer.object(with: outside).setValue(9, forKey: "rank")
            try writer.save()
        }
        let seen = try await Self.prefix(stream, 2)
        #expect(seen.count == 2)
        #expect(seen.first == initial)
        #expect(seen.last == (try ObservingFixture.fresh(request, in: view, sectionKey: nil).ids))
        #expect(seen.last?.contains(outside) == true)
    }

    @Test func aBadRequestEndsTheSequenceWithItsError() async throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let stream = fixture.context("view").observe(FetchRequest(entityName: "Task", sortKeys: [SortKey("rnak")]))
        let error = await #expect(throws: StrataError.self) { _ = try await Self.prefix(stream, 1) }
        #expect(error?.code == .unknownKey)
        #expect(error?.message.contains("rank") == true, "it names the nearest key")
    }
}
