import Foundation
import Strata
import StrataReplication
import StrataStorage

/// The benchmark's store: items with a name and a value.
enum BenchStore {
    static let schema = try! Schema {
        Entity("Item") {
            Attribute("name", .string)
            Attribute("value", .int64, default: 0)
        }
    }

    static func open(_ path: String, durability: Durability = .always) throws -> PersistentStore {
        var options = PersistentStore.Options()
        options.storage.durability = durability
        options.automaticCheckpointBytes = nil
        return try PersistentStore.open(at: path, schema: schema, options: options)
    }

    /// One save inserting one item (a typical small commit).
    static func save(_ context: ObjectContext, _ k: Int) throws {
        try context.performAndWait {
            let item = try context.insert("Item")
            try item.setValues(["name": .string("item \(k) of the replication benchmark, a short line of text"), "value": .int(Int64(k))])
            try context.save()
        }
    }

    static func replicator(_ store: PersistentStore, _ server: BenchServer, mode: Replicator.Mode = .asynchronous) throws -> Replicator {
        var options = Replicator.Options()
        options.mode = mode
        options.storeID = "bench-\(UUID().uuidString.lowercased())"
        return try Replicator(store: store, url: server.url, options: options)
    }
}

/// Catch-up shipping of N frames against `COPY` of the same rows.
enum ShipWorkload {
    static func run(server: BenchServer, frames: Int, in workspace: String) throws {
        let store = try BenchStore.open("\(workspace)/ship.strata", durability: .never)
        let context = ObjectContext(store: store)
        for k in 0..<frames { try BenchStore.save(context, k) }
        let replicator = try BenchStore.replicator(store, server)
        let start = now()
        try replicator.start()
        guard replicator.waitUntilShipped(store.lastLSN, timeout: .seconds(3600)) else { fail("shipping did not finish: \(replicator.status)") }
        let ship = now() - start
        replicator.stop()
        let id = replicator.storeID
        let bytes = Double(try server.sql("SELECT sum(length(frame)) FROM strata_frames WHERE store_id = '\(id)'").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let file = "\(workspace)/frames.copy"
        try server.sql("\\copy (SELECT store_id, lsn, committed_at, frame FROM strata_frames WHERE store_id = '\(id)' ORDER BY lsn) TO '\(file)' WITH (FORMAT binary)")
        try server.sql("DROP TABLE IF EXISTS bench_copy; CREATE TABLE bench_copy (store_id text, lsn bigint, committed_at bigint NOT NULL, frame bytea NOT NULL, PRIMARY KEY (store_id, lsn))")
        let copyStart = now()
        try server.sql("\\copy bench_copy FROM '\(file)' WITH (FORMAT binary)")
        let copy = now() - copyStart
        try server.sql("DROP TABLE bench_copy")
        try store.close()
        let megabytes = bytes / 1e6
        report(String(format: "ship     %d frames, %.1f MB: shipped in %.2f s (%.0f frames/s, %.1f MB/s); COPY of the same rows %.2f s (%.1f MB/s) · ship ÷ COPY %@",
                     frames, megabytes, ship, Double(frames) / ship, megabytes / ship, copy, megabytes / copy, Stats.ratio(ship, copy)))
    }
}

/// A replica's lag under a steady commit rate.
enum LagWorkload {
    /// When each LSN became visible on the replica.
    /// `@unchecked Sendable`: `times` is read and written only while `lock` is held.
    final class Visible: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [UInt64: Double] = [:]
        func note(_ lsn: UInt64) { let t = now(); lock.withLock { times[lsn] = t } }
        var all: [UInt64: Double] { lock.withLock { times } }
    }

    static func run(server: BenchServer, seconds: Double, rate: Double, in workspace: String) throws {
        let store = try BenchStore.open("\(workspace)/lag.strata")
        let replicator = try BenchStore.replicator(store, server)
        try replicator.start()
        defer { replicator.stop() }
        guard replicator.waitUntilShipped(store.lastLSN) else { fail("the first frame was not shipped") }
        let replica = try PersistentStore.openReplica(at: "\(workspace)/lag-replica.strata", from: server.url, storeID: replicator.storeID)
        defer { try? replica.close() }
        let visible = Visible()
        let token = replica.store.observeChanges { change in visible.note(change.lsn) }
        defer { token.cancel() }
        let context = ObjectContext(store: store)
        var committed: [UInt64: Double] = [:]
        let count = Int(seconds * rate)
        let start = now()
        for k in 0..<count {
            let due = start + Double(k) / rate
            let wait = due - now()
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            try BenchStore.save(context, k)
            committed[store.lastLSN] = now()
        }
        let elapsed = now() - start
        guard replica.waitUntilApplied(store.lastLSN, timeout: .seconds(120)) else { fail("the replica did not catch up: \(replica.status)") }
        let seen = visible.all
        let lags = committed.compactMap { lsn, time in seen[lsn].map { max(0, $0 - time) } }
        report(String(format: "lag      %d commits at %.0f/s asked, %.0f/s achieved: replica lag p50 %@, p99 %@, max %@ (%d of %d commits observed)",
                     count, rate, Double(count) / elapsed, Stats.ms(Stats.percentile(lags, 50)), Stats.ms(Stats.percentile(lags, 99)),
                     Stats.ms(lags.max() ?? .nan), lags.count, count))
        try store.close()
    }
}

/// Synchronous-mode save latency against a plain `INSERT` commit.
enum SyncWorkload {
    static func run(server: BenchServer, saves: Int, in workspace: String) throws {
        let store = try BenchStore.open("\(workspace)/sync.strata")
        let replicator = try BenchStore.replicator(store, server, mode: .synchronous)
        try replicator.start()
        defer { replicator.stop() }
        let context = ObjectContext(store: store)
        var latencies: [Double] = []
        latencies.reserveCapacity(saves)
        for k in 0..<saves {
            let start = now()
            try BenchStore.save(context, k)
            latencies.append(now() - start)
        }
        try store.close()

        // One psql connection, one INSERT per statement in autocommit, timed by psql's \timing.
        try server.sql("DROP TABLE IF EXISTS bench_insert; CREATE TABLE bench_insert (id bigint PRIMARY KEY, name text NOT NULL, value bigint NOT NULL)")
        let script = "\(workspace)/inserts.sql"
        var text = "\\timing on\n"
        for k in 0..<saves { text += "INSERT INTO bench_insert VALUES (\(k), 'item \(k) of the replication benchmark, a short line of text', \(k));\n" }
        try text.write(toFile: script, atomically: true, encoding: .utf8)
        let output = try BenchServer.run(server.psql, [server.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", script])
        let inserts = output.split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("Time: ") else { return nil }
            return Double(line.dropFirst(6).split(separator: " ").first ?? "").map { $0 / 1000 }
        }
        try server.sql("DROP TABLE bench_insert")
        let saveP50 = Stats.percentile(latencies, 50), insertP50 = Stats.percentile(inserts, 50)
        report("sync     \(saves) saves: synchronous save p50 \(Stats.ms(saveP50)), p99 \(Stats.ms(Stats.percentile(latencies, 99))); plain INSERT commit p50 \(Stats.ms(insertP50)), p99 \(Stats.ms(Stats.percentile(inserts, 99))) (\(inserts.count) timed) · save ÷ INSERT \(Stats.ratio(saveP50, insertP50))")
    }
}

/// Restore of an N-row store from its shipped snapshot.
enum RestoreWorkload {
    static func run(server: BenchServer, rows: Int, in workspace: String) throws {
        let store = try BenchStore.open("\(workspace)/restore.strata", durability: .never)
        var next = 0
        while next < rows {
            let batch = min(100_000, rows - next)
            let objects: [[String: AttributeValue]] = (next..<next + batch).map { k in
                ["name": .string("item \(k) of the replication benchmark, a short line of text"), "value": .int(Int64(k))]
            }
            _ = try store.execute(BatchInsertRequest(entityName: "Item", objects: objects))
            next += batch
        }
        _ = try store.checkpoint()
        let replicator = try BenchStore.replicator(store, server)
        try replicator.start()
        guard replicator.waitUntilShipped(store.lastLSN, timeout: .seconds(3600)) else { fail("shipping did not finish: \(replicator.status)") }
        replicator.stop()
        let id = replicator.storeID
        try store.close()
        let start = now()
        let restored = try StoreRestore.restore(from: server.url, storeID: id, into: "\(workspace)/restored.strata")
        let restore = now() - start
        let bytes = Double(try server.sql("SELECT sum(length(bytes)) FROM strata_snapshot_chunks WHERE store_id = '\(id)'").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let readStart = now()
        try server.sql("\\copy (SELECT bytes FROM strata_snapshot_chunks WHERE store_id = '\(id)' ORDER BY lsn, chunk) TO '/dev/null' WITH (FORMAT binary)")
        let read = now() - readStart
        report(String(format: "restore  %d rows (snapshot %.1f MB, then %d frames): restored in %.2f s; reading the same bytes out with COPY %.2f s · restore ÷ COPY %@",
                     rows, bytes / 1e6, restored.frames, restore, read, Stats.ratio(restore, read)))
    }
}
