import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataStorage

/// Everything at once: contexts on several queues saving transfers, batch updates, inserts
/// and deletes, asynchronous and synchronous fetches, and checkpoints — while every reader
/// checks that what it sees is one committed version. Run under the thread sanitizer by
/// `scripts/tsan`.
///
/// The invariant: accounts move money between each other (the total never changes), and
/// every change to a row keeps `up + down == 0` on it. Batch updates add 1 to `up` and −1 to
/// `down`; batch inserts add accounts with zero balance; batch deletes remove only accounts
/// whose balance is zero. A reader that saw half a transaction would see a wrong total or a
/// row with `up + down != 0`.
///
/// Knob: `STRATA_STRESS_ROUNDS` (default 60 rounds per worker).
@Suite struct ConcurrentStressTests {
    static let schema = try! Schema {
        Entity("Account") {
            Attribute("balance", .int64, default: 0)
            Attribute("up", .int64, default: 0)
            Attribute("down", .int64, default: 0)
        }
    }
    static let accounts = 12
    static let total: Int64 = 12 * 100

    /// Checks the invariant on rows read as dictionaries from one version.
    static func check(_ rows: [[String: AttributeValue]], _ who: String, _ problems: LockedBox<[String]>) {
        var sum: Int64 = 0
        for row in rows {
            guard case .int(let balance)? = row["balance"], case .int(let up)? = row["up"], case .int(let down)? = row["down"] else {
                problems.mutate { $0.append("\(who): a row without values \(row)") }
                return
            }
            sum += balance
            if up + down != 0 { problems.mutate { $0.append("\(who): a row with up \(up), down \(down)") } }
        }
        if sum != total { problems.mutate { $0.append("\(who): total \(sum), expected \(total) (\(rows.count) rows)") } }
    }

    @Test func readersSeeOneVersionWhileEverythingRunsAtOnce() throws {
        let rounds = testKnob("STRATA_STRESS_ROUNDS", default: 60)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = 16 << 10 // automatic checkpoints too
        options.storage.segmentSize = 8 << 10
        let store = try PersistentStore.open(at: directory.path, schema: Self.schema, options: options)
        let setup = ObjectContext(store: store)
        try setup.performAndWait {
            for _ in 0..<Self.accounts { try setup.insert("Account").setValue(.int(Self.total / Int64(Self.accounts)), forKey: "balance") }
            try setup.save()
        }
        let problems = LockedBox<[String]>([])
        let counts = LockedBox<[String: Int]>([:])
        @Sendable func count(_ key: String) { counts.mutate { $0[key, default: 0] += 1 } }
        let group = DispatchGroup()
        let dictionaries: FetchRequest = {
            var request = FetchRequest(entityName: "Account")
            request.resultType = .dictionaries
            request.includesPendingChanges = false
            return request
        }()

        // Writers: transfers through contexts on their own queues (conflicts retried).
        for worker in 0..<3 {
            DispatchQueue.global().async(group: group) {
                let context = ObjectContext(store: store, name: "writer \(worker)")
                var rng = SplitMix64(seed: UInt64(worker + 1))
                for _ in 0..<rounds {
                    context.performAndWait {
                        do {
                            let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Account"))
                            guard ids.count >= 2 else { return }
                            let from = try context.existingObject(with: ids[Int(rng.next() % UInt64(ids.count))])
                            let to = try context.existingObject(with: ids[Int(rng.next() % UInt64(ids.count))])
                            guard from !== to else { return }
                            let amount = Int64(rng.next() % 5) + 1
                            try from.setValues(["balance": .int(try from.int("balance")! - amount), "up": .int(try from.int("up")! + 1), "down": .int(try from.int("down")! - 1)])
                            try to.setValue(.int(try to.int("balance")! + amount), forKey: "balance")
                            try context.save()
                            count("transfers")
                        } catch let error as StrataError where error.code == .conflict || error.code == .objectNotFound {
                            count("conflicts")
                            context.rollback()
                            context.reset()
                        } catch {
                            problems.mutate { $0.append("writer \(worker): \(error)") }
                        }
                    }
                }
            }
        }
        // Batch requests straight to the store.
        DispatchQueue.global().async(group: group) {
            for round in 0..<rounds {
                do {
                    switch round % 3 {
                    case 0:
                        _ = try store.execute(BatchUpdateRequest(entityName: "Account", propertiesToUpdate: ["up": .add("up", 1), "down": .add("down", -1)]))
                    case 1:
                        _ = try store.execute(BatchInsertRequest(entityName: "Account", objects: [["balance": 0], ["balance": 0]]))
                    default:
                        _ = try store.execute(BatchDeleteRequest(entityName: "Account", predicate: try ObjectPredicate(format: "balance == 0")))
                    }
                    count("batch requests")
                } catch {
                    problems.mutate { $0.append("batch \(round): \(error)") }
                }
            }
        }
        // Checkpoints.
        DispatchQueue.global().async(group: group) {
            for _ in 0..<max(1, rounds / 10) {
                do { try store.checkpoint(); count("checkpoints") }
                catch let error as StorageError where error.code == .invalidArgument { count("checkpoints already running") }
                catch { problems.mutate { $0.append("checkpoint: \(error)") } }
            }
        }
        // Readers: asynchronous fetches (completion on the context's queue) and synchronous ones.
        for reader in 0..<2 {
            DispatchQueue.global().async(group: group) {
                let context = ObjectContext(store: store, name: "reader \(reader)")
                for round in 0..<rounds {
                    if round % 2 == reader {
                        let done = DispatchSemaphore(value: 0)
                        let request = AsynchronousFetchRequest(fetchRequest: dictionaries) { result in
                            if let rows = result.dictionaries { Self.check(rows, "async reader \(reader)", problems) }
                            else { problems.mutate { $0.append("async reader \(reader): \(String(describing: result.operationError))") } }
                            done.signal()
                        }
                        do {
                            _ = try context.performAndWait { try context.execute(request) }
                            done.wait()
                            count("async fetches")
                        } catch { problems.mutate { $0.append("async reader \(reader): \(error)") } }
                    } else {
                        context.performAndWait {
                            do { Self.check(try context.fetchDictionaries(dictionaries), "reader \(reader)", problems); count("fetches") }
                            catch { problems.mutate { $0.append("reader \(reader): \(error)") } }
                        }
                    }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 600) == .success, "the workers did not finish in 10 minutes")
        for problem in problems.get().prefix(20) { Issue.record(Comment(rawValue: problem)) }
        // Automatic checkpoints may still be running: check without replaying the directory here,
        // and with it after reopening.
        try store.checkInvariants(replay: false)
        let final = ObjectContext(store: store)
        try final.performAndWait { Self.check(try final.fetchDictionaries(dictionaries), "final", problems) }
        try store.close()
        let reopened = try PersistentStore.open(at: directory.path, schema: Self.schema)
        let after = ObjectContext(store: reopened)
        try after.performAndWait { Self.check(try after.fetchDictionaries(dictionaries), "after reopening", problems) }
        try reopened.checkInvariants()
        for problem in problems.get().prefix(40) where problem.hasPrefix("final") || problem.hasPrefix("after") {
            Issue.record(Comment(rawValue: problem))
        }
        print("concurrent stress: \(counts.get().sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))")
    }
}
