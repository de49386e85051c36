import Foundation
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Schema, populated stores and completion plumbing shared by the asynchronous fetch tests.
enum AsyncFixture {
    static let schema = try! Schema {
        Entity("TodoItem") {
            Attribute("name", .string)
            Attribute("done", .bool, default: false)
            Attribute("createdAt", .date)
            Attribute("priority", .int16, default: 0)
            Attribute("score", .double, optional: true)
            Attribute("tag", .string, optional: true)
        }
    }

    /// Opens a store in `dir` and fills it with `count` items by one batch insert; item `i`
    /// is created at a seeded random time, `done` for every third, priority `i % 11`.
    static func makeStore(_ dir: TemporaryDirectory, count: Int, seed: UInt64 = 1) throws -> PersistentStore {
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        let store = try PersistentStore.open(at: dir.path, schema: schema, options: options)
        var rng = SplitMix64(seed: seed)
        let times = (0..<count).map { _ in Double(rng.next() % 10_000_000) }
        var insert = BatchInsertRequest(entityName: "TodoItem", count: count) { i, row in
            row["name"] = .string("item \(i)")
            row["createdAt"] = .date(Date(timeIntervalSince1970: times[i]))
            row["done"] = .bool(i % 3 == 0)
            row["priority"] = .int(Int64(i % 11))
            if i % 4 != 0 { row["score"] = .double(Double(i % 97) / 97) }
            if i % 5 == 0 { row["tag"] = .string(["home", "work", "Home", "errand"][i % 4]) }
        }
        insert.resultType = .count
        _ = try store.execute(insert)
        return store
    }

    /// What a completion handler saw, copied out on the context's queue.
    struct Outcome: Sendable {
        var objectIDs: [ObjectID]?
        var count: Int?
        var dictionaries: [[String: AttributeValue]]?
        /// The IDs of `finalResult`'s objects, or `nil` when there is no final result.
        var finalResultIDs: [ObjectID]?
        /// Whether `finalResult`'s objects are registered in the context (the same instances).
        var finalResultRegistered: Bool
        var error: StrataError?
        var completedOnContextQueue: Bool
    }

    /// Progress updates as the handler receives them, with whatever the test wants to do on
    /// each (`onUpdate(index, update, result)`), in the order they arrive.
    final class ProgressLog: Sendable {
        private let state = Locked<[FetchProgress]>([])
        /// Every update so far.
        var updates: [FetchProgress] { state.withLock { $0 } }
        /// Records `update` and returns its index.
        func record(_ update: FetchProgress) -> Int { state.withLock { $0.append(update); return $0.count - 1 } }
    }

    /// Starts `fetch` asynchronously in `context` and returns the running result and a stream
    /// that yields the completion's outcome once. `onProgress` runs in the progress handler
    /// (on the background queue) with the update's index.
    static func start(_ fetch: FetchRequest, in context: ObjectContext, log: ProgressLog = ProgressLog(),
                      onProgress: (@Sendable (Int, FetchProgress) -> Void)? = nil) throws -> (AsynchronousFetchResult, AsyncStream<Outcome>) {
        let (stream, continuation) = AsyncStream<Outcome>.makeStream()
        let request = AsynchronousFetchRequest(fetchRequest: fetch) { result in
            let registered = result.finalResult.map { objects in
                // `objectIDs` is made on each read: read it once.
                let ids = objects.objectIDs
                return objects.indices.allSatisfy { context.object(with: ids[$0]) === objects[$0] }
            } ?? false
            continuation.yield(Outcome(objectIDs: result.objectIDs, count: result.count, dictionaries: result.dictionaries,
                                       finalResultIDs: result.finalResult?.objectIDs, finalResultRegistered: registered,
                                       error: result.operationError, completedOnContextQueue: context.isOnQueue))
            continuation.finish()
        }
        request.progressHandler = { update in
            let index = log.record(update)
            onProgress?(index, update)
        }
        return (try context.execute(request), stream)
    }

    /// The completion's outcome (waits for the completion handler; no timing involved).
    static func outcome(_ stream: AsyncStream<Outcome>) async -> Outcome? {
        for await outcome in stream { return outcome }
        return nil
    }

    /// The completion's outcome, or `nil` when the completion handler has not run within
    /// `limit` — so that a lost completion fails the test that waits for it instead of
    /// stalling the whole run. The limit is a dispatch timer, not a task sleep.
    static func outcome(_ stream: AsyncStream<Outcome>, within limit: DispatchTimeInterval) async -> Outcome? {
        let (expired, expire) = AsyncStream<Void>.makeStream()
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
            expire.yield()
            expire.finish()
        }
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { await outcome(stream) }
            group.addTask {
                for await _ in expired { return nil }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Checks that `updates` are monotonic, that only the last is finished, and that the last
    /// reports `count` records found over all `total` rows; returns the problems found.
    static func progressProblems(_ updates: [FetchProgress], count: Int, total: Int) -> [String] {
        var problems: [String] = []
        guard let last = updates.last else { return ["no progress update"] }
        for (a, b) in zip(updates, updates.dropFirst()) where b.found < a.found || b.scanned < a.scanned {
            problems.append("not monotonic: \(a) then \(b)")
        }
        if updates.dropLast().contains(where: \.isFinished) { problems.append("an update before the last is finished") }
        if !last.isFinished { problems.append("the last update is not finished: \(last)") }
        if last.found != count { problems.append("the last update found \(last.found), the result has \(count)") }
        if last.scanned != total || last.total != total || last.fraction != 1 { problems.append("the last update did not cover all \(total) rows: \(last)") }
        if updates.contains(where: { $0.total != total }) { problems.append("total changed during the scan") }
        return problems
    }
}
