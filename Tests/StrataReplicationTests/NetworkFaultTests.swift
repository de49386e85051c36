import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// Issue 22's fault tests: PostgreSQL in a network namespace of its own, reached over one
/// link by the primary and over another by the replica (`scripts/netns-lab`), so that either
/// link can be cut and healed and the server killed with SIGKILL and restarted. After each
/// fault the replica converges to an exact prefix of the primary, restore gives the
/// acknowledged state, and in synchronous mode no acknowledged save is lost.
///
/// Where namespaces cannot be made (not root, no `ip`), the same faults are made against the
/// suite's server by closing every connection (`pg_terminate_backend`), and each test prints
/// which way it ran. Every wait is bounded.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct NetworkFaultTests {
    /// Short timeouts, so that a cut link is noticed within a second or two.
    static var replicatorOptions: Replicator.Options {
        var options = Replicator.Options()
        options.timeout = .seconds(2)
        options.retryInterval = .milliseconds(200)
        return options
    }

    static var replicaOptions: Replica.Options {
        var options = Replica.Options()
        options.timeout = .seconds(2)
        options.retryInterval = .milliseconds(200)
        options.pollInterval = .milliseconds(200)
        return options
    }

    @Test func cutLinksLoseNothingAndTheReplicaConvergesToThePrimary() throws {
        let lab = try FaultLab.make()
        defer { lab.close() }
        print("NetworkFaultTests: \(lab.description)")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let primary = try PeopleStore.open(dir.appending("primary.strata"))
        let replicator = try Replicator(store: primary, url: lab.primaryURL, options: Self.replicatorOptions)
        try replicator.start()
        defer { replicator.stop() }
        for round in 0..<3 { try PeopleStore.save(primary, round: round) }
        #expect(replicator.waitUntilShipped(primary.lastLSN))
        let replica = try PersistentStore.openReplica(at: dir.appending("replica.strata"), from: lab.replicaURL,
                                                      storeID: replicator.storeID, options: Self.replicaOptions)
        defer { try? replica.close() }
        #expect(replica.waitUntilApplied(primary.lastLSN))

        // The primary's link goes down: saves go on (asynchronous mode never waits), the
        // replicator reports the lag and the failure, the replica stays at what was shipped.
        let beforeCut = primary.lastLSN
        try lab.cut(.primary)
        for round in 3..<8 { try PeopleStore.save(primary, round: round) }
        if lab.isolatesLinks {
            #expect(ReplicaTests.eventually(15) { replicator.status.lastError?.code == .unreachable }, "\(replicator.status)")
            #expect(replicator.status.lagFrames > 0)
            #expect(replicator.status.shippedLSN == beforeCut)
            #expect(replica.store.lastLSN == beforeCut)
        }
        #expect(try Self.isExactPrefix(replica, url: lab.replicaURL, in: dir))

        // Healed, everything is shipped and the replica catches up, row for row.
        try lab.heal(.primary)
        #expect(replicator.waitUntilShipped(primary.lastLSN, timeout: .seconds(30)), "\(replicator.status)")
        #expect(replica.waitUntilApplied(primary.lastLSN, timeout: .seconds(30)), "\(replica.status)")
        #expect(try PeopleStore.contents(replica.store) == PeopleStore.contents(primary))

        // The replica is partitioned: the primary ships on, the replica holds its prefix.
        let beforePartition = replica.status.appliedLSN
        try lab.cut(.replica)
        for round in 8..<11 { try PeopleStore.save(primary, round: round) }
        #expect(replicator.waitUntilShipped(primary.lastLSN, timeout: .seconds(30)), "\(replicator.status)")
        if lab.isolatesLinks {
            #expect(ReplicaTests.eventually(15) { replica.status.lastError?.code == .unreachable }, "\(replica.status)")
            #expect(replica.store.lastLSN == beforePartition)
        }
        #expect(try Self.isExactPrefix(replica, url: lab.primaryURL, in: dir))
        try lab.heal(.replica)
        #expect(replica.waitUntilApplied(primary.lastLSN, timeout: .seconds(30)), "\(replica.status)")
        #expect(try PeopleStore.contents(replica.store) == PeopleStore.contents(primary))

        // Restore gives the acknowledged state.
        let restored = try StoreRestore.restore(from: lab.primaryURL, storeID: replicator.storeID, into: dir.appending("restored.strata"))
        #expect(restored.lsn == primary.lastLSN)
        let restoredStore = try PeopleStore.open(restored.directory)
        #expect(try PeopleStore.contents(restoredStore) == PeopleStore.contents(primary))
        try restoredStore.close()
    }

    @Test func aKilledServerLosesNoAcknowledgedSynchronousSave() throws {
        let lab = try FaultLab.make()
        defer { lab.close() }
        print("NetworkFaultTests: \(lab.description)")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let primary = try PeopleStore.open(dir.appending("primary.strata"))
        var options = Self.replicatorOptions
        options.mode = .synchronous
        let replicator = try Replicator(store: primary, url: lab.primaryURL, options: options)
        try replicator.start()
        defer { replicator.stop() }
        for round in 0..<2 {
            try PeopleStore.save(primary, round: round)
            // Synchronous: the save returned, so PostgreSQL has its frame already.
            #expect(replicator.status.shippedLSN == primary.lastLSN)
        }
        let replica = try PersistentStore.openReplica(at: dir.appending("replica.strata"), from: lab.replicaURL,
                                                      storeID: replicator.storeID, options: Self.replicaOptions)
        defer { try? replica.close() }

        // The server dies. A save started now is durable locally but not acknowledged: it
        // must not return until the restarted server has its frame.
        try lab.killServer()
        let saved = SaveOutcome()
        let saving = Thread {
            do { try PeopleStore.save(primary, round: 2) } catch { saved.fail(error) }
            saved.finish()
        }
        saving.start()
        Thread.sleep(forTimeInterval: 1.5)
        if lab.stopsServer { #expect(!saved.isFinished, "a synchronous save returned while PostgreSQL was down") }
        try lab.restartServer()
        #expect(ReplicaTests.eventually(30) { saved.isFinished }, "the save did not return after the server came back: \(replicator.status)")
        #expect(saved.error == nil)
        let acknowledged = primary.lastLSN
        #expect(replicator.status.shippedLSN >= acknowledged)

        // Every acknowledged save is in PostgreSQL, and the replica, whose connection died
        // with the server, reconnects and converges.
        let session = try PostgresSession.connect(PostgresLocation(lab.primaryURL))
        #expect(try RemoteLog(session: session, storeID: replicator.storeID).shippedLSN() == acknowledged)
        session.close()
        try PeopleStore.save(primary, round: 3)
        #expect(replica.waitUntilApplied(primary.lastLSN, timeout: .seconds(30)), "\(replica.status)")
        #expect(try PeopleStore.contents(replica.store) == PeopleStore.contents(primary))
        let restored = try StoreRestore.restore(from: lab.primaryURL, storeID: replicator.storeID, into: dir.appending("restored.strata"))
        #expect(restored.lsn == primary.lastLSN)
    }

    @Test func aPrimaryKilledMidCommitLosesNoAcknowledgedSaveAndShipsOnAfterRecovery() throws {
        let lab = try FaultLab.make()
        defer { lab.close() }
        print("NetworkFaultTests: \(lab.description)")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.appending("primary.strata")
        let writerBinary = URL(fileURLWithPath: RestoreCommandTests.binary).deletingLastPathComponent()
            .appendingPathComponent("StrataShippingWriter").path
        let writer = try FollowPromoteCommandTests.RunningTool([path, lab.primaryURL], executable: writerBinary)
        #expect(writer.waitFor("started "), "\(writer.stdout)")
        let storeID = try #require(writer.stdout.split(separator: "\n").first.map { String($0.dropFirst("started ".count)) })
        #expect(writer.waitFor("acknowledged "), "\(writer.stdout)")
        let replica = try PersistentStore.openReplica(at: dir.appending("replica.strata"), from: lab.replicaURL,
                                                      storeID: storeID, options: Self.replicaOptions)
        defer { try? replica.close() }
        // Let it commit for a while, then kill it at a moment that falls inside some commit
        // (it does nothing but commit).
        let acknowledgedBefore = Self.acknowledged(writer.stdout)
        #expect(ReplicaTests.eventually(20) { Self.acknowledged(writer.stdout) >= acknowledgedBefore + 20 }, "\(writer.stdout)")
        Thread.sleep(forTimeInterval: Double.random(in: 0...0.05))
        writer.kill()
        let acknowledged = Self.acknowledged(writer.stdout)
        #expect(!writer.stdout.contains("error:"), "\(writer.stdout)")

        // Recovery keeps every acknowledged save; PostgreSQL holds every acknowledged frame
        // and nothing the recovered log lacks.
        let primary = try PeopleStore.open(path)
        defer { try? primary.close() }
        #expect(primary.lastLSN >= acknowledged)
        let session = try PostgresSession.connect(PostgresLocation(lab.primaryURL))
        let shipped = try RemoteLog(session: session, storeID: storeID).shippedLSN() ?? 0
        session.close()
        #expect(shipped >= acknowledged && shipped <= primary.lastLSN, "shipped \(shipped), acknowledged \(acknowledged), recovered \(primary.lastLSN)")
        #expect(replica.waitUntilApplied(shipped, timeout: .seconds(30)), "\(replica.status)")
        #expect(try Self.isExactPrefix(replica, url: lab.replicaURL, in: dir))

        // The restarted primary ships the rest, and the replica converges to it.
        var options = Self.replicatorOptions
        options.storeID = storeID
        let replicator = try Replicator(store: primary, url: lab.primaryURL, options: options)
        try replicator.start()
        defer { replicator.stop() }
        try PeopleStore.save(primary, round: 1)
        #expect(replicator.waitUntilShipped(primary.lastLSN, timeout: .seconds(30)), "\(replicator.status)")
        #expect(replica.waitUntilApplied(primary.lastLSN, timeout: .seconds(30)), "\(replica.status)")
        #expect(try PeopleStore.contents(replica.store) == PeopleStore.contents(primary))
    }

    /// The last LSN a `StrataShippingWriter` printed as acknowledged (0 before the first).
    static func acknowledged(_ output: String) -> UInt64 {
        output.split(separator: "\n").reversed().lazy.compactMap { line -> UInt64? in
            line.hasPrefix("acknowledged ") ? UInt64(line.dropFirst("acknowledged ".count)) : nil
        }.first ?? 0
    }

    /// Whether `replica` holds exactly the primary's state as of the replica's LSN: what
    /// PostgreSQL restores at that LSN (read over `url`, a link that is up), row for row.
    static func isExactPrefix(_ replica: Replica, url: String, in dir: TemporaryDirectory) throws -> Bool {
        for _ in 0..<5 {
            let lsn = replica.store.lastLSN
            let rows = try PeopleStore.contents(replica.store)
            guard replica.store.lastLSN == lsn else { continue }  // it moved meanwhile: again
            let target = dir.appending("prefix-\(lsn)-\(UUID().uuidString).strata")
            let restored = try StoreRestore.restore(from: url, storeID: replica.storeID, at: lsn, into: target)
            let store = try PeopleStore.open(restored.directory)
            defer { try? store.close() }
            return try PeopleStore.contents(store) == rows
        }
        return false
    }
}

/// The outcome of a save made on another thread.
///
/// `@unchecked Sendable`: both fields are read and written only while `lock` is held.
final class SaveOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false
    private var failure: (any Error)?
    func finish() { lock.withLock { finished = true } }
    func fail(_ error: any Error) { lock.withLock { failure = error } }
    var isFinished: Bool { lock.withLock { finished } }
    var error: (any Error)? { lock.withLock { failure } }
}
