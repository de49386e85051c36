import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// `QueueThread`: a context knows cheaply that a thread is inside a block it started on its
/// queue, and never says so of a thread that is not.
@Suite struct QueueThreadTests {
    private func context() throws -> (StoreFixture, ObjectContext) {
        let fixture = try StoreFixture(GraphSchemas.notes)
        return (fixture, ObjectContext(store: fixture.store))
    }

    @Test func performAndWaitMarksItsThreadOnlyWhileItRuns() throws {
        let (fixture, context) = try context()
        defer { fixture.remove() }
        #expect(!context.queueThread.isCurrent && !context.isOnQueueQuickly)
        let inside = context.performAndWait { (context.queueThread.isCurrent, context.isOnQueueQuickly) }
        #expect(inside == (true, true))
        #expect(!context.queueThread.isCurrent && !context.isOnQueueQuickly, "the mark outlived the block")
    }

    @Test func aNestedPerformAndWaitKeepsTheMark() throws {
        let (fixture, context) = try context()
        defer { fixture.remove() }
        let other = ObjectContext(store: context.store)
        let marks = context.performAndWait {
            let nested = other.performAndWait { (context.queueThread.isCurrent, other.queueThread.isCurrent) }
            return (nested, context.queueThread.isCurrent, other.queueThread.isCurrent)
        }
        #expect(marks.0 == (true, true) && marks.1 && !marks.2)
    }

    @Test func performAndScheduleMarkTheirBlocks() async throws {
        let (fixture, context) = try context()
        defer { fixture.remove() }
        #expect(try await context.perform { context.queueThread.isCurrent })
        let scheduled = await withCheckedContinuation { continuation in
            context.schedule { continuation.resume(returning: context.queueThread.isCurrent) }
        }
        #expect(scheduled)
    }

    @Test func anotherThreadIsNotMarked() throws {
        let (fixture, context) = try context()
        defer { fixture.remove() }
        let seenElsewhere = context.performAndWait {
            let seen = Locked(true)
            let done = DispatchSemaphore(value: 0)
            Thread {
                seen.withLock { $0 = context.queueThread.isCurrent }
                done.signal()
            }.start()
            done.wait()
            return seen.withLock { $0 }
        }
        #expect(!seenElsewhere)
    }
}
