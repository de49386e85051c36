import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// The key probe (one `==` on an index's first property answered from the index alone)
/// returns what the general path returns: on a table of many chunks and leaves, for present
/// and absent values, with a context's unsaved inserts, updates and deletes, and on a store
/// reopened after a crash; and it leaves nil, NaN and every other shape to the general path.
@Suite struct KeyProbeTests {
    static let rows = 5_000

    /// A unique email, a repeated optional nickname (every 9th nil; "common" on every 4th
    /// row, more than a probe gives), an indexed integer with repeats and an indexed double
    /// with NaN; `indexed: false` has no index and no constraint (every fetch scans).
    static func schema(indexed: Bool) -> Schema {
        try! Schema {
            Entity("Person", indexes: indexed ? [["nickname"], ["number"], ["score"], ["group", "number"]] : [],
                   uniquenessConstraints: indexed ? [["email"]] : []) {
                Attribute("email", .string)
                Attribute("nickname", .string, optional: true)
                Attribute("group", .string)
                Attribute("number", .int32)
                Attribute("score", .double)
            }
        }
    }

    static func fill(_ store: PersistentStore) throws {
        _ = try store.execute(BatchInsertRequest(entityName: "Person", count: rows) { i, row in
            row["email"] = .string("p\((i * 7919) % KeyProbeTests.rows)@é.example")
            row["nickname"] = i % 9 == 0 ? .null : .string(i % 4 == 0 ? "common" : "n\(i % 300)")
            row["group"] = .string(["a", "b", "Ä"][i % 3])
            row["number"] = .int(Int64(i % 700 - 20))
            row["score"] = .double(i % 11 == 0 ? .nan : Double(i % 40) / 2)
        })
    }

    static func request(_ format: String, _ arguments: any PredicateArgumentConvertible...) throws -> FetchRequest {
        FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: format, arguments: arguments))
    }

    /// Two stores filled alike, the first without indexes.
    static func pair() throws -> (plain: PersistentStore, indexed: PersistentStore, remove: () -> Void) {
        let plainDirectory = try TemporaryDirectory(), indexedDirectory = try TemporaryDirectory()
        let plain = try PersistentStore.open(at: plainDirectory.path, schema: schema(indexed: false))
        let indexed = try PersistentStore.open(at: indexedDirectory.path, schema: schema(indexed: true))
        try fill(plain)
        try fill(indexed)
        return (plain, indexed, {
            try? plain.close(); try? indexed.close()
            plainDirectory.remove(); indexedDirectory.remove()
        })
    }

    @Test func probesReturnWhatAScanReturns() throws {
        let (plain, indexed, remove) = try Self.pair()
        defer { remove() }
        #expect(indexed.currentVersion.tables[0].chunks.count > 3, "the table spans several chunks")
        var probed: [String] = []
        let emails = (0..<Self.rows).map { "p\($0)@é.example" }
        let values: [(String, AttributeValue)] =
            stride(from: 0, to: Self.rows, by: 97).map { ("email", .string(emails[$0])) }
            + ["", "a", "p", "zzz", "p5000@é.example", "P1@é.example", "p1@e\u{301}.example"].map { ("email", .string($0)) }
            + ["n1", "n299", "n300", "common", "", "zz"].map { ("nickname", .string($0)) }
            + [-20, -21, 0, 5, 679, 680, Int64(Int32.max) + 1].map { ("number", .int($0)) }
        // One context for every lookup: its cached shape follows the key from one to the next.
        let context = ObjectContext(store: indexed)
        for (key, value) in values {
            var request = FetchRequest(entityName: "Person", predicate: .comparison(.init(.keyPath([key]), .equalTo, .constant(value))))
            let expected = try ObjectContext(store: plain).performAndWaitFetchKeys(request)
            #expect(try context.performAndWaitFetchKeys(request) == expected, "\(key) == \(value)")
            #expect(try context.performAndWait { try context.count(for: request) } == expected.count, "count of \(key) == \(value)")
            #expect(try context.performAndWait { try context.fetch(request).map(\.objectID.primaryKey) } == expected, "objects of \(key) == \(value)")
            // The same through the probe itself, when it answers (not past its limit).
            if let probe = KeyProbe(request, store: indexed), let keys = probe.keys(indexed.currentVersion, options: indexed.options) {
                #expect(keys == expected, "\(key) == \(value)")
                probed.append("\(key) == \(value)")
                #expect(try indexed.fetchStrategy(request).probedIndex == probe.indexNames)
            } else {
                #expect(expected.count > KeyProbe.matchLimit, "only too many matches leave \(key) == \(value) to the general path")
            }
            // Offset and limit, as the general path applies them.
            for (offset, limit) in [(0, 1), (1, 0), (1, 2), (expected.count, 0)] {
                request.fetchOffset = offset
                request.fetchLimit = limit
                let expected = try ObjectContext(store: plain).performAndWaitFetchKeys(request)
                #expect(try context.performAndWaitFetchKeys(request) == expected, "\(key) == \(value) offset \(offset) limit \(limit)")
                #expect(try context.performAndWait { try context.count(for: request) } == expected.count)
            }
        }
        #expect(probed.count == values.count - 1, "every lookup but 'common' is probed: \(probed)")
    }

    @Test func otherShapesNilAndNaNTakeTheGeneralPath() throws {
        let (plain, indexed, remove) = try Self.pair()
        defer { remove() }
        var nilNickname = FetchRequest(entityName: "Person", predicate: .comparison(.init(.keyPath(["nickname"]), .equalTo, .constant(.null))))
        let general: [FetchRequest] = [
            nilNickname,
            FetchRequest(entityName: "Person", predicate: .comparison(.init(.keyPath(["score"]), .equalTo, .constant(.double(.nan))))), try Self.request("score == 3.5"),
            try Self.request("email ==[c] %@", "P1@É.EXAMPLE"), try Self.request("email IN {'p1@é.example'}"),
            try Self.request("email == 'p1@é.example' AND number > 0"), try Self.request("number == 5.0"),
            try Self.request("email != 'p1@é.example'"),
            FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == 'p1@é.example'"), sortKeys: [SortKey("number")]),
        ]
        nilNickname.fetchLimit = 3
        for request in general + [nilNickname] {
            let format = request.predicate?.predicateFormat ?? ""
            #expect(KeyProbe(request, store: indexed) == nil, "\(format)")
            #expect(try indexed.fetchStrategy(request).probedIndex == nil, "\(format)")
            let expected = try ObjectContext(store: plain).performAndWaitFetchKeys(request)
            #expect(try ObjectContext(store: indexed).performAndWaitFetchKeys(request) == expected, "\(format)")
        }
        // `group` leads only a compound index: the probe reads it and sorts the keys.
        let group = try Self.request("group == 'Ä'")
        #expect(KeyProbe(group, store: indexed)?.indexNames == ["group", "number"])
        #expect(KeyProbe(group, store: indexed)?.keys(indexed.currentVersion, options: indexed.options) == nil, "more matches than a probe gives")
    }

    @Test func errorsAreTheGeneralPathsErrors() throws {
        let (_, indexed, remove) = try Self.pair()
        defer { remove() }
        let context = ObjectContext(store: indexed)
        let unknown = try Self.request("emial == 'x'")
        #expect(throws: StrataError.self) { try context.performAndWait { try context.fetchObjectIDs(unknown) } }
        let mismatch = try Self.request("email == 5")
        #expect(throws: StrataError.self) { try context.performAndWait { try context.fetchObjectIDs(mismatch) } }
        var negative = try Self.request("email == 'p1@é.example'")
        negative.fetchLimit = -1
        #expect(throws: StrataError.self) { try context.performAndWait { try context.fetchObjectIDs(negative) } }
        let offQueue = try Self.request("email == 'p1@é.example'")
        do {
            _ = try context.fetchObjectIDs(offQueue)
            Issue.record("a fetch off the context's queue must fail")
        } catch {
            #expect(error.code == .misuse)
        }
    }

    @Test func unsavedInsertsUpdatesAndDeletesCount() throws {
        let (_, indexed, remove) = try Self.pair()
        defer { remove() }
        let context = ObjectContext(store: indexed)
        let other = ObjectContext(store: indexed)
        func keys(_ context: ObjectContext, _ email: String, pending: Bool = true) throws -> [Int64] {
            var request = try Self.request("email == %@", email)
            request.includesPendingChanges = pending
            return try context.performAndWaitFetchKeys(request)
        }
        let moved = try keys(context, "p10@é.example"), gone = try keys(context, "p20@é.example")
        #expect(moved.count == 1 && gone.count == 1)
        let inserted = try context.performAndWait {
            let person = try context.insert("Person")
            try person.setValues(["email": "new@é.example", "group": "a", "number": .int(1), "score": .double(1)])
            let mover = try context.existingObject(with: ObjectID(storeID: indexed.storeID, entityName: "Person", primaryKey: moved[0]))
            try mover.setValue("moved@é.example", forKey: "email")
            context.delete(try context.existingObject(with: ObjectID(storeID: indexed.storeID, entityName: "Person", primaryKey: gone[0])))
            return person.objectID.primaryKey
        }
        #expect(try keys(context, "new@é.example") == [inserted])
        #expect(try keys(context, "moved@é.example") == moved)
        #expect(try keys(context, "p10@é.example") == [])
        #expect(try keys(context, "p20@é.example") == [])
        #expect(try keys(context, "p30@é.example").count == 1, "an unchanged row is still found")
        // Without the pending changes, and in another context: the saved state.
        #expect(try keys(context, "new@é.example", pending: false) == [])
        #expect(try keys(context, "p10@é.example", pending: false) == moved)
        #expect(try keys(other, "new@é.example") == [])
        #expect(try keys(other, "p20@é.example") == gone)
        // Saved: every context's probe reads the new version.
        try context.performAndWait { try context.save() }
        #expect(try keys(other, "new@é.example") == [inserted])
        #expect(try keys(other, "moved@é.example") == moved)
        #expect(try keys(other, "p10@é.example") == [])
        #expect(try keys(other, "p20@é.example") == [])
        #expect(KeyProbe(try Self.request("email == 'x'"), store: indexed) != nil)
    }

    @Test func probesAfterACrashFindTheRecoveredRows() throws {
        let fs = SimulatedFileSystem()
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        options.storage.fileSystem = fs
        let store = try PersistentStore.open(at: "/store", schema: Self.schema(indexed: true), options: options)
        try Self.fill(store)
        _ = try store.checkpoint()
        // After the snapshot, only the log has these: new rows, a changed email, a deletion.
        let context = ObjectContext(store: store)
        let (added, moved, gone) = try context.performAndWait {
            let added = try (0..<30).map { i -> Int64 in
                let person = try context.insert("Person")
                try person.setValues(["email": .string("after\(i)@é.example"), "group": "b", "number": .int(Int64(i)), "score": .double(0)])
                return person.objectID.primaryKey
            }
            let moved = try context.fetchObjectIDs(try Self.request("email == 'p10@é.example'"))[0]
            try context.existingObject(with: moved).setValue("moved@é.example", forKey: "email")
            let gone = try context.fetchObjectIDs(try Self.request("email == 'p20@é.example'"))[0]
            context.delete(try context.existingObject(with: gone))
            try context.save()
            return (added, moved.primaryKey, gone.primaryKey)
        }
        // The crash: the process dies without closing the store.
        let reopened = try PersistentStore.open(at: "/store", schema: Self.schema(indexed: true), options: {
            var crashed = options
            crashed.storage.fileSystem = fs.processCrashImage()
            return crashed
        }())
        defer { try? reopened.close() }
        let lookups = ObjectContext(store: reopened)
        for (i, key) in added.enumerated() {
            let request = try Self.request("email == %@", "after\(i)@é.example")
            #expect(try lookups.performAndWaitFetchKeys(request) == [key])
            #expect(KeyProbe(request, store: reopened)?.keys(reopened.currentVersion, options: reopened.options) == [key])
        }
        #expect(try lookups.performAndWaitFetchKeys(try Self.request("email == 'moved@é.example'")) == [moved])
        #expect(try lookups.performAndWaitFetchKeys(try Self.request("email == 'p10@é.example'")) == [])
        #expect(try lookups.performAndWaitFetchKeys(try Self.request("email == 'p20@é.example'")) == [])
        #expect(!(try lookups.performAndWaitFetchKeys(try Self.request("email == 'p30@é.example'"))).isEmpty)
        // Every probe agrees with the general path's index lookup on the recovered store.
        for i in stride(from: 0, to: Self.rows, by: 53) {
            let email = "p\(i)@é.example"
            let probe = try lookups.performAndWaitFetchKeys(try Self.request("email == %@", email))
            #expect(probe == (try lookups.performAndWaitFetchKeys(try Self.request("email IN %@", [email]))), "\(email)")
        }
        #expect(try reopened.fetchStrategy(try Self.request("email == 'moved@é.example'")).probedIndex == ["email"])
        #expect(reopened.currentVersion.tables[0].locate(gone) == nil, "the deleted row stays deleted")
        #expect(reopened.currentVersion.tables[0].locate(moved) != nil)
    }

    @Test func explainNamesTheProbe() throws {
        let (_, indexed, remove) = try Self.pair()
        defer { remove() }
        let strategy = try indexed.fetchStrategy(try Self.request("email == 'p1@é.example'"))
        #expect(strategy.lookupIndex == ["email"])
        #expect(strategy.description.hasSuffix("\nplan: key probe of index (email), no row read"), "\(strategy.description)")
        #expect(!(try indexed.fetchStrategy(try Self.request("email IN {'p1@é.example'}"))).description.contains("probe"))
    }
}
