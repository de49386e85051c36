import Foundation
import Strata
import StrataStorage
import StrataTestSupport
import Testing

/// `strata log` on a store that keeps persistent history lists the transactions that
/// checkpoints folded into snapshots too, from history, with their authors.
@Suite struct HistoryLogTests {
    static let schema = try! Schema {
        Entity("Note") {
            Attribute("text", .string)
            Attribute("done", .bool, default: false)
        }
    }

    /// A store with history: three saves by "alice", a checkpoint, a batch update by
    /// "check all", a checkpoint, a save by an unnamed context.
    static func makeStore(at path: String) throws {
        var options = PersistentStore.Options()
        options.persistentHistory = .untilPurged
        let store = try PersistentStore.open(at: path, schema: schema, options: options)
        let alice = ObjectContext(store: store, name: "alice")
        for i in 0..<3 {
            try alice.performAndWait { () throws in
                let note = try alice.insert("Note")
                try note.setValue(.string("n\(i)"), forKey: "text")
                try alice.save()
            }
        }
        try store.checkpoint()
        var checkAll = BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["done": .constant(true)])
        checkAll.transactionAuthor = "check all"
        _ = try store.execute(checkAll)
        try store.checkpoint()
        let anonymous = ObjectContext(store: store)
        try anonymous.performAndWait { () throws in
            let note = try anonymous.insert("Note")
            try note.setValue(.string("last"), forKey: "text")
            try anonymous.save()
        }
        try store.close()
    }

    @Test func logListsTransactionsAcrossCheckpointsFromHistory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = "\(directory.path)/notes.strata"
        try Self.makeStore(at: path)
        let run = try Inspector.run(["log", path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.map { $0["lsn"] as? Int } == [2, 3, 4, 5, 6])
        #expect(objects.map { $0["author"] as? String } == ["alice", "alice", "alice", "check all", nil])
        #expect(objects.map { $0["kind"] as? String } == ["save", "save", "save", "batch update", "save"])
        #expect(objects.prefix(4).allSatisfy { ($0["segment"] as? String)?.hasSuffix(".hist") == true })
        #expect((objects.last?["segment"] as? String)?.hasPrefix("wal-") == true)
        let update = try #require((objects[3]["changes"] as? [[String: Any]])?.first)
        #expect(update["entity"] as? String == "Note" && update["updated"] as? Int == 3)

        let table = try Inspector.run(["log", path, "--from", "4", "--limit", "2"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("AUTHOR") && table.stdout.contains("check all"), "\(table.stdout)")
        #expect(table.stdout.split(separator: "\n").count == 4, "\(table.stdout)")  // header, rule, two rows
        for arguments in [["info", path], ["verify", path, "--deep"], ["stats", path]] {
            let other = try Inspector.run(arguments)
            #expect(other.status == 0, "\(arguments): \(other.stdout) \(other.stderr)")
        }
    }
}
