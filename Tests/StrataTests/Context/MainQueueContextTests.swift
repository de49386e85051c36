import Dispatch
import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A `.mainQueue` context. Its work runs on the main queue, which must be serviced by
/// something (an app's run loop or `dispatchMain()`).
///
/// Under `swift test` on Linux (swift-testing runner) the main dispatch queue is serviced,
/// but not by the main thread: the runner parks the main thread in `dispatchMain()`
/// (`_dispatch_sig_thread`), and libdispatch then drains the main queue on a worker thread.
/// So main-queue blocks run serialized but `Thread.isMainThread` is false in them, and
/// `DispatchQueue.main.sync` runs its block on the calling thread. A main-queue context
/// therefore recognises its queue by a queue-specific key, not by the thread.
/// ``mainQueueIsServiced()`` checks at run time that main-queue blocks run at all, so the
/// tests fail with a clear reason instead of hanging in a process that never services it.
@Suite struct MainQueueContextTests {
    /// Whether a block put on the main queue runs within a few seconds.
    static func mainQueueIsServiced() -> Bool {
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { ran.signal() }
        return ran.wait(timeout: .now() + 5) == .success
    }

    @Test func performAndWaitFromABackgroundThread() throws {
        try #require(Self.mainQueueIsServiced(), "the main queue is not serviced in this process")
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let context = ObjectContext(store: fixture.store, concurrencyType: .mainQueue, name: "main")
        #expect(!Thread.isMainThread, "this test runs off the main thread")
        #expect(!context.isOnQueue)
        let id = try context.performAndWait {
            // On Linux, `DispatchQueue.main.sync` from another thread may run the block on
            // the calling thread while it holds the main queue; either way it is serialized
            // with every other main-queue block, and the context accepts it.
            #expect(context.isOnQueue)
            let note = try context.insert("Note")
            try note.setValues(["title": "main", "body": "b"])
            try context.save()
            return note.objectID
        }
        #expect(GraphDump(fixture.store).entities["Note"]?[id.primaryKey]?["title"] == "main")
    }

    @Test func awaitPerform() async throws {
        try #require(Self.mainQueueIsServiced(), "the main queue is not serviced in this process")
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let context = ObjectContext(store: fixture.store, concurrencyType: .mainQueue, name: "main")
        let id = try await context.perform {
            precondition(context.isOnQueue, "perform runs the block on the main queue")
            let note = try context.insert("Note")
            try note.setValues(["title": "awaited", "body": "b"])
            try context.save()
            return note.objectID
        }
        let title = try await context.perform { try context.existingObject(with: id).string("title") }
        #expect(title == "awaited")
        let error = await #expect(throws: StrataError.self) {
            try await context.perform { _ = try context.insert("Nope") }
        }
        #expect(error?.code == .unknownEntity, "perform rethrows the body's error")
    }

    @Test func backgroundSaveMergesIntoTheMainContext() async throws {
        try #require(Self.mainQueueIsServiced(), "the main queue is not serviced in this process")
        let fixture = try StoreFixture(GraphSchemas.notes)
        defer { fixture.remove() }
        let main = ObjectContext(store: fixture.store, concurrencyType: .mainQueue, name: "main")
        let background = fixture.context("background")
        let id = try await background.perform {
            let note = try background.insert("Note")
            try note.setValues(["title": "v1", "body": "b"])
            try background.save()
            return note.objectID
        }
        try await main.perform {
            main.automaticallyMergesChangesFromStore = true
            _ = try main.existingObject(with: id).string("title")
        }
        try await background.perform {
            try background.object(with: id).setValue("v2", forKey: "title")
            try background.save()
        }
        #expect(try waitUntil(main) { try main.object(with: id).string("title") == "v2" })
    }
}
