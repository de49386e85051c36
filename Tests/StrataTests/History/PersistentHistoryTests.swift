import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Persistent history: what each kind of transaction records, across checkpoints and
/// reopens, retention and purges.
@Suite struct PersistentHistoryTests {
    static func options(_ fs: SimulatedFileSystem, _ retention: HistoryRetention = .untilPurged) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.storage.fileSystem = fs
        options.automaticCheckpointBytes = nil
        options.persistentHistory = retention
        return options
    }

    static func addAuthors(_ context: ObjectContext, _ names: [String]) throws -> [ManagedObject] {
        try context.performAndWait { () throws -> [ManagedObject] in
            let authors = try names.map { name -> ManagedObject in
                let author = try context.insert("Author")
                try author.setValue(.string(name), forKey: "name")
                return author
            }
            try context.save()
            return authors
        }
    }

    @Test func eachKindOfTransactionIsRecordedWithItsAuthorAndChanges() throws {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs))
        let context = ObjectContext(store: store, name: "editor")
        let authors = try Self.addAuthors(context, ["Ann", "Bob", "Cy"])
        context.transactionAuthor = "importer"
        try context.performAndWait { () throws in
            try authors[0].setValue(.int(40), forKey: "age")
            try authors[1].setValue(.string("Bobby"), forKey: "name")
            context.delete(authors[2])
            try context.save()
        }
        var update = BatchUpdateRequest(entityName: "Author", propertiesToUpdate: ["active": .constant(false)])
        update.transactionAuthor = "check all"
        _ = try store.execute(update)
        var insert = BatchInsertRequest(entityName: "Book", count: 5) { i, row in row["title"] = .string("B\(i)") }
        insert.transactionAuthor = "seed"
        _ = try store.execute(insert)
        _ = try store.execute(BatchDeleteRequest(entityName: "Book"))

        let history = try store.history()
        #expect(history.map(\.transactionNumber) == [2, 3, 4, 5, 6])
        #expect(history.map(\.author) == ["editor", "importer", "check all", "seed", nil])
        #expect(history.map(\.kind) == [.save, .save, .batchUpdate, .batchInsert, .batchDelete])
        #expect(history[0].insertedObjectIDs == ObjectIDSet(authors.map(\.objectID)))
        #expect(history[1].updatedProperties(of: authors[0].objectID) == ["age"])
        #expect(history[1].updatedProperties(of: authors[1].objectID) == ["name"])
        #expect(history[1].updatedProperties(of: authors[2].objectID) == nil)
        #expect(history[1].deletedObjectIDs == [authors[2].objectID])
        #expect(history[2].updatedObjectIDs == ObjectIDSet(authors.prefix(2).map(\.objectID)))
        #expect(history[2].changeGroups.map(\.updatedProperties) == [["active"]])
        #expect(history[3].insertedObjectIDs.count == 5)
        #expect(history[4].deletedObjectIDs == history[3].insertedObjectIDs)
        #expect(history[1].changes.count == 3)
        #expect(try store.history(after: history[2].token).map(\.transactionNumber) == [5, 6])
        #expect(try store.history(after: store.currentHistoryToken).isEmpty)
        try store.close()
    }

    /// A save whose updates set different properties, in runs and interleaved (in whatever
    /// order the save lists them): each object is filed under exactly the properties it
    /// changed, and each set of properties makes one group.
    @Test func interleavedUpdatesAreGroupedByTheirProperties() throws {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs))
        let context = ObjectContext(store: store)
        let kinds = [0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 0]
        let authors = try Self.addAuthors(context, kinds.indices.map { "A\($0)" })
        try context.performAndWait { () throws in
            for (i, author) in authors.enumerated() {
                switch kinds[i] {
                case 0: try author.setValue(.int(Int64(i)), forKey: "age")
                case 1: try author.setValue(.string("B\(i)"), forKey: "name")
                default:
                    try author.setValue(.string("C\(i)"), forKey: "name")
                    try author.setValue(.int(Int64(i)), forKey: "age")
                }
            }
            try context.save()
        }
        let last = try #require(try store.history().last)
        for (i, author) in authors.enumerated() {
            let expected: Set<String> = [["age"], ["name"], ["age", "name"]][kinds[i]]
            #expect(last.updatedProperties(of: author.objectID) == expected, "author \(i)")
        }
        #expect(last.changeGroups.map { $0.updatedProperties.sorted() }.sorted { $0.lexicographicallyPrecedes($1) }
                == [["age"], ["age", "name"], ["name"]])
        #expect(last.updatedObjectIDs.count == kinds.count)
        try store.close()
    }

    @Test func historySurvivesCheckpointsAndReopens() throws {
        let fs = SimulatedFileSystem()
        var store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs))
        var context = ObjectContext(store: store, name: "a")
        for round in 0..<5 {
            _ = try Self.addAuthors(context, ["r\(round)"])
            try store.checkpoint()
        }
        _ = try Self.addAuthors(context, ["tail"])
        // The log now holds only the last save; history holds all six.
        #expect(try store.history().map(\.transactionNumber) == Array(2...7))
        try store.close()
        store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs))
        #expect(try store.history().map(\.transactionNumber) == Array(2...7))
        #expect(try store.history().allSatisfy { $0.author == "a" })
        context = ObjectContext(store: store)
        _ = try Self.addAuthors(context, ["after"])
        #expect(try store.history().map(\.transactionNumber) == Array(2...8))
        try store.close()
        // A read-only open (the inspector's) reads it too, without the option.
        let reader = try PersistentStore.open(at: "/s", options: {
            var o = PersistentStore.Options.readOnly
            o.storage.fileSystem = fs
            return o
        }())
        #expect(try reader.history().map(\.transactionNumber) == Array(2...8))
        try reader.close()
    }

    @Test func deleteHistoryPurgesDurably() throws {
        let fs = SimulatedFileSystem()
        var store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs))
        let context = ObjectContext(store: store)
        for i in 0..<6 { _ = try Self.addAuthors(context, ["p\(i)"]) }
        let history = try store.history()
        try store.deleteHistory(before: history[3].token)
        #expect(try store.history().map(\.transactionNumber) == [6, 7])
        try store.close()
        store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs.powerLossImage(seed: 3)))
        #expect(try store.history().map(\.transactionNumber) == [6, 7])
        try store.close()
    }

    @Test func retentionBoundsHistory() throws {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs, .transactions(40)))
        let context = ObjectContext(store: store)
        var most = 0
        for i in 0..<300 {
            _ = try Self.addAuthors(context, ["x\(i)"])
            if i % 25 == 24 { try store.checkpoint() }
            most = max(most, store.historyStatistics.transactions)
        }
        let kept = try store.history().map(\.transactionNumber)
        // At least the last 40; on disk at most 40 + two segments of 10 (the one retention
        // could not delete yet and the one being filled), plus what waits in memory (25).
        #expect(kept.count >= 40)
        #expect(kept == Array((store.lastLSN - UInt64(kept.count) + 1)...store.lastLSN))
        #expect(most <= 40 + 20 + 25, "history grew to \(most) transactions")
        try store.close()
    }

    @Test func aBatchUpdateOfManyRowsTakesAFewBytesOfHistory() throws {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: Self.options(fs))
        let rows = 100_000
        _ = try store.execute(BatchInsertRequest(entityName: "Book", count: rows) { i, row in row["title"] = .string("t\(i)") })
        let before = store.historyStatistics.bytes
        _ = try store.execute(BatchUpdateRequest(entityName: "Book", propertiesToUpdate: ["pages": .constant(.int(10))]))
        let entryBytes = store.historyStatistics.bytes - before
        #expect(entryBytes < 128, "a \(rows)-row batch update took \(entryBytes) bytes of history")
        let last = try #require(try store.history().last)
        #expect(last.updatedObjectIDs.count == rows)
        #expect(last.changeGroups.map(\.updatedProperties) == [["pages"]])
        try store.close()
    }

    @Test func historyIsOffByDefault() throws {
        let fs = SimulatedFileSystem()
        var options = Self.options(fs)
        options.persistentHistory = nil
        let store = try PersistentStore.open(at: "/s", schema: GraphSchemas.library, options: options)
        #expect(!store.keepsHistory)
        #expect(throws: StrataError.self) { try store.history() }
        #expect(try fs.contentsOfDirectory("/s").allSatisfy { HistoryLog.segmentLSN($0) == nil })
        try store.close()
    }
}
