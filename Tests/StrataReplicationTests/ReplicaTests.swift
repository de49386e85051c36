import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// Issue 22, read replicas and promotion: a replica built from PostgreSQL follows the primary
/// as PostgreSQL announces frames, always an exact prefix; a promotion fences the old primary
/// so that two writers can never interleave their histories.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct ReplicaTests {
    /// Waits (bounded) until `condition` holds.
    static func eventually(_ seconds: TimeInterval = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    /// A primary with a running replicator and a few saves, all shipped.
    static func shippedPrimary(_ dir: TemporaryDirectory, rounds: Int = 3) throws -> (PersistentStore, Replicator) {
        let primary = try PeopleStore.open(dir.appending("primary.strata"))
        let replicator = try Replicator(store: primary, url: try TestServer.requireURL())
        try replicator.start()
        for round in 0..<rounds { try PeopleStore.save(primary, round: round) }
        #expect(replicator.waitUntilShipped(primary.lastLSN))
        return (primary, replicator)
    }

    @Test func aReplicaFollowsThePrimaryAsPostgresAnnouncesFrames() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (primary, replicator) = try Self.shippedPrimary(dir)
        defer { replicator.stop() }
        // A poll interval longer than the test: only a notification can bring the frames in time.
        var options = Replica.Options()
        options.pollInterval = .seconds(600)
        let replica = try PersistentStore.openReplica(at: dir.appending("replica.strata"), from: try TestServer.requireURL(),
                                                      storeID: replicator.storeID, options: options)
        defer { try? replica.close() }
        #expect(replica.store.lastLSN == primary.lastLSN)
        #expect(try PeopleStore.contents(replica.store) == PeopleStore.contents(primary))
        let announced = AnnouncedLSNs()
        let token = replica.store.observeChanges { change in announced.append(change.lsn) }
        defer { token.cancel() }

        for round in 3..<8 {
            try PeopleStore.save(primary, round: round)
            #expect(replicator.waitUntilShipped(primary.lastLSN))
            let lsn = primary.lastLSN
            #expect(Self.eventually { replica.status.appliedLSN >= lsn }, "round \(round): frame \(lsn) was not applied without a poll")
            #expect(replica.store.lastLSN == lsn)
            #expect(try PeopleStore.contents(replica.store) == PeopleStore.contents(primary), "round \(round)")
        }
        // Every transaction was announced to the replica's observers, once, in order.
        let lsns = announced.all
        #expect(lsns == Array((primary.lastLSN - 4)...primary.lastLSN))
        #expect(replica.status.lagFrames == 0)
        #expect(replica.status.isRunning)
        // A replica is read-only.
        let context = ObjectContext(store: replica.store)
        #expect(throws: StrataError.self) {
            try context.performAndWait {
                _ = try context.insert("Person")
                try context.save()
            }
        }
    }

    /// On a replica, what an app builds on contexts updates as on the primary: a
    /// fetched-results controller reports each arriving frame's inserts and updates, a live
    /// query yields the new results, and a context that merges automatically shows the
    /// primary's new values in the objects it already holds.
    @Test(.timeLimit(.minutes(1)))
    func controllersLiveQueriesAndMergingContextsOnAReplicaUpdateAsFramesArrive() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (primary, replicator) = try Self.shippedPrimary(dir)
        defer { replicator.stop() }
        var options = Replica.Options()
        options.pollInterval = .milliseconds(100)
        let replica = try PersistentStore.openReplica(at: dir.appending("replica.strata"), from: try TestServer.requireURL(),
                                                      storeID: replicator.storeID, options: options)
        defer { try? replica.close() }

        let context = ObjectContext(store: replica.store)
        context.automaticallyMergesChangesFromStore = true
        let request = FetchRequest(entityName: "Person", sortKeys: [SortKey("age")])
        let controller = try FetchedResultsController(fetchRequest: request, context: context)
        let reported = ReportedChanges()
        let first = try context.performAndWait { () throws -> ManagedObject in
            try controller.performFetch()
            controller.didChange = { change in reported.append(change) }
            let first = controller.fetchedObjects[0]
            _ = try first.string("name")   // loaded, so only a merge can bring the new name
            return first
        }
        let firstID = first.objectID
        let before = controller.fetchedObjectIDs.count
        var liveQuery = context.observe(request).makeAsyncIterator()
        #expect(try await liveQuery.next()?.count == before)

        try PeopleStore.save(primary, round: 5)   // three new people, and a rename of the first
        #expect(replicator.waitUntilShipped(primary.lastLSN))
        #expect(try await liveQuery.next()?.count == before + 3)
        #expect(Self.eventually { reported.all.count == 1 })
        let change = try #require(reported.all.first)
        #expect(change.insertedOffsets.count == 3)
        let expected = try PeopleStore.contents(primary)
        try context.performAndWait {
            #expect(controller.fetchedObjectIDs.count == before + 3)
            let renamed = try context.existingObject(with: firstID)
            let primaryContext = ObjectContext(store: primary)
            let primaryName = try primaryContext.performAndWait {
                try primaryContext.existingObject(with: firstID).string("name")
            }
            #expect(primaryName == "renamed in round 5")
            #expect(try renamed.string("name") == primaryName)
        }
        #expect(try PeopleStore.contents(replica.store) == expected)
    }

    @Test func aPromotionFencesTheOldPrimaryAndTheNewOneShipsAfterIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let url = try TestServer.requireURL()
        let (primary, replicator) = try Self.shippedPrimary(dir)
        defer { replicator.stop() }
        let replica = try PersistentStore.openReplica(at: dir.appending("replica.strata"), from: url, storeID: replicator.storeID)
        #expect(replica.waitUntilApplied(primary.lastLSN))

        let promoted = try replica.promote(schema: PeopleStore.schema)
        defer { try? promoted.close() }
        #expect(promoted.lastLSN == primary.lastLSN)
        #expect(try PeopleStore.contents(promoted) == PeopleStore.contents(primary))
        #expect(try EpochFile.read(promoted.directory) == 1)
        #expect(!replica.status.isRunning)

        // Before the new primary ships anything, the old primary's next frame is refused (the
        // shipped LSN has not moved: only the epoch stops it), and its replicator stops for good.
        let fencePoint = promoted.lastLSN
        try PeopleStore.save(primary, round: 60)
        #expect(Self.eventually { !replicator.status.isRunning }, "the fenced replicator kept running")
        #expect(replicator.status.lastError?.code == .fenced)
        #expect(replicator.status.shippedLSN == fencePoint)
        let session = try TestServer.session()
        #expect(try RemoteLog(session: session, storeID: replicator.storeID).state()?.shipped == fencePoint)
        session.close()
        replicator.stop()

        // The new primary ships under the new epoch, right after the old primary's last frame.
        let successor = try Replicator(store: promoted, url: url, options: {
            var options = Replicator.Options()
            options.storeID = replicator.storeID
            return options
        }())
        try successor.start()
        defer { successor.stop() }
        try PeopleStore.save(promoted, round: 50)
        #expect(successor.waitUntilShipped(promoted.lastLSN))
        // Starting it again is refused too: the store's epoch (0) is behind PostgreSQL's (1).
        let again = try Replicator(store: primary, url: url)
        #expect(throws: ReplicationError.self) { try again.start() }
        do { try again.start() } catch { #expect(error.code == .fenced) }

        // PostgreSQL holds the new primary's history, and nothing of the old one's after the fence.
        let restoredDir = try TemporaryDirectory()
        defer { restoredDir.remove() }
        let report = try StoreRestore.restore(from: url, storeID: replicator.storeID, into: restoredDir.appending("r.strata"))
        #expect(report.lsn == promoted.lastLSN)
        let restored = try PeopleStore.open(report.directory)
        #expect(try PeopleStore.contents(restored) == PeopleStore.contents(promoted))
        try restored.close()

        // A replica opened now follows the new primary.
        let follower = try PersistentStore.openReplica(at: dir.appending("replica-2.strata"), from: url, storeID: replicator.storeID)
        defer { try? follower.close() }
        try PeopleStore.save(promoted, round: 51)
        #expect(successor.waitUntilShipped(promoted.lastLSN))
        #expect(follower.waitUntilApplied(promoted.lastLSN))
        #expect(try PeopleStore.contents(follower.store) == PeopleStore.contents(promoted))
    }

    @Test func aDirectoryThatIsNotAReplicaIsNeverOverwritten() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (primary, replicator) = try Self.shippedPrimary(dir, rounds: 1)
        defer { replicator.stop() }
        let before = try PeopleStore.contents(primary)
        let url = try TestServer.requireURL()
        do {
            _ = try PersistentStore.openReplica(at: primary.directory, from: url, storeID: replicator.storeID)
            Issue.record("a replica was opened over the primary's directory")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("not a replica"))
        }
        #expect(try PeopleStore.contents(primary) == before)
        do {
            _ = try PersistentStore.openReplica(at: dir.appending("r.strata"), from: url, storeID: "no-such-store")
            Issue.record("a replica of a store never shipped was opened")
        } catch {
            #expect(error.code == .notFound)
        }
    }
}

/// The LSNs a store's observers were told of, in order.
///
/// `@unchecked Sendable`: `lsns` is read and written only while `lock` is held.
final class AnnouncedLSNs: @unchecked Sendable {
    private let lock = NSLock()
    private var lsns: [UInt64] = []
    func append(_ lsn: UInt64) { lock.withLock { lsns.append(lsn) } }
    var all: [UInt64] { lock.withLock { lsns } }
}

final class ReportedChanges: @unchecked Sendable {
    // @unchecked Sendable: `changes` is read and written only under `lock`.
    private let lock = NSLock()
    private var changes: [FetchedResultsChange] = []
    func append(_ change: FetchedResultsChange) { lock.withLock { changes.append(change) } }
    var all: [FetchedResultsChange] { lock.withLock { changes } }
}
