import Foundation
import Testing
@testable import Strata
import StrataEncryption
import StrataStorage
import StrataTestSupport

/// A snapshot chunk rewritten together with its checksum (``ForgedChunkStore``) passes the
/// open, which checks checksums only, and is refused by its first read, which checks its GCM
/// tag (docs/FORMAT.md §14.3): whichever public operation reads it first throws the typed
/// `.corrupted` error naming the snapshot and the chunk's offset, no process stops, nothing
/// read from the chunk is returned, and nothing is written to the log or a snapshot, then or
/// later.
@Suite struct ForgedChunkTests {
    /// The public operations that read the forged chunk, each the first to touch it after an
    /// open.
    enum Operation: String, CaseIterable, CustomTestStringConvertible {
        case fetch, count, fetchObjectIDs, fetchDictionaries, faultFiring, existingObject
        case asynchronousFetch, fetchedResultsController, observe
        case batchUpdate, batchDelete, batchInsert, saveDelete, saveInsert
        case checkpoint, rotateKey, exportRows, explain, inspectorStatistics, inspectorInvariants

        var testDescription: String { rawValue }
    }

    /// Titles that only a read of the rows can tell apart (no column statistic decides it).
    static let everyNote = try! ObjectPredicate(format: "title CONTAINS 'note'")

    @Test(arguments: Operation.allCases)
    func theFirstReadOfTheChunkThrowsAndNothingIsWritten(_ operation: Operation) async throws {
        let forged = try ForgedChunkStore.make()
        defer { forged.directory.remove() }
        let store = try forged.open()
        defer { try? store.close() }
        let before = try forged.logAndSnapshots()
        #expect(store.rowCounts["Note"] == ForgedChunkStore.rows, "the open must not need the chunk")

        let error = await Self.error(of: operation, on: store, forged: forged)
        #expect(error.map(forged.isTheDamage) == true, "\(operation): \(error.map { "\($0)" } ?? "no error")")
        defer { #expect((try? forged.logAndSnapshots()) == before, "\(operation) wrote to the store") }
        // The inspector reads through a store of its own; the writer's has read nothing.
        guard operation != .inspectorStatistics && operation != .inspectorInvariants else { return }

        // Every later operation throws the same damage, the chunk's or not, and writes nothing.
        let context = ObjectContext(store: store)
        let tagCount = #expect(throws: StrataError.self) {
            try context.performAndWait { try context.count(for: FetchRequest(entityName: "Tag", predicate: try ObjectPredicate(format: "name CONTAINS 'tag'"))) }
        }
        #expect(tagCount.map(forged.isTheDamage) == true)
        let save = #expect(throws: StrataError.self) {
            try context.performAndWait {
                try context.insert("Tag").setValue(.string("new"), forKey: "name")
                try context.save()
            }
        }
        #expect(save.map(forged.isTheDamage) == true)
        #expect(throws: StrataError.self) { try store.checkpoint() }
    }

    /// The same when the reads that meet the chunk run on several threads: a parallel scan's
    /// or a batch request's decode on another core records the damage, and the operation
    /// throws it and writes nothing.
    @Test(arguments: [Operation.fetch, .count, .fetchObjectIDs, .asynchronousFetch, .batchUpdate, .batchDelete])
    func aReadOnAnotherCoreThrowsTheSameAndWritesNothing(_ operation: Operation) async throws {
        let forged = try ForgedChunkStore.make()
        defer { forged.directory.remove() }
        let store = try forged.open(onEveryCore: true)
        defer { try? store.close() }
        let before = try forged.logAndSnapshots()
        let error = await Self.error(of: operation, on: store, forged: forged)
        #expect(error.map(forged.isTheDamage) == true, "\(operation): \(error.map { "\($0)" } ?? "no error")")
        #expect((try? forged.logAndSnapshots()) == before, "\(operation) wrote to the store")
    }

    /// The forged row's token changed by one bit: a read that skipped the tag would find the
    /// saved token missing, or return the changed one. Neither happens.
    @Test func theForgedValueNeverEscapes() throws {
        let forged = try ForgedChunkStore.make()
        defer { forged.directory.remove() }
        let store = try forged.open()
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        let byToken = FetchRequest(entityName: "Note", predicate: try ObjectPredicate(format: "token == %@", forged.token))
        let error = #expect(throws: StrataError.self) {
            try context.performAndWait { try context.fetchDictionaries(byToken) }
        }
        #expect(error.map(forged.isTheDamage) == true, "\(error.map { "\($0)" } ?? "")")
        // A fetch that would load the objects' values from where its scan found them makes
        // none: the object of the forged row stays a fault, and reading it throws, every time.
        var loading = FetchRequest(entityName: "Note", predicate: Self.everyNote, sortKeys: [SortKey("rank")])
        loading.returnsObjectsAsFaults = false
        #expect(throws: StrataError.self) { try context.performAndWait { _ = try context.fetch(loading) } }
        context.performAndWait {
            let object = context.object(with: ObjectID(storeID: store.storeID, entityName: "Note", primaryKey: forged.forgedKey))
            for _ in 0..<2 {
                #expect(throws: StrataError.self) { _ = try object.value(forKey: "token") }
            }
            #expect(object.isFault)
        }
    }

    /// Rows of other chunks read before the forged chunk is touched come back as saved: the
    /// damage is found by the first read of that chunk, not earlier.
    @Test func otherChunksReadNormallyUntilTheForgedOneIsRead() throws {
        let forged = try ForgedChunkStore.make()
        defer { forged.directory.remove() }
        let store = try forged.open()
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let first = try context.existingObject(with: ObjectID(storeID: store.storeID, entityName: "Note", primaryKey: 1))
            #expect(try first.value(forKey: "token") == .string(ForgedChunkStore.token(0)))
            let inside = context.object(with: ObjectID(storeID: store.storeID, entityName: "Note", primaryKey: forged.keys.lowerBound))
            let error = #expect(throws: StrataError.self) { _ = try inside.value(forKey: "title") }
            #expect(error.map(forged.isTheDamage) == true)
        }
    }

    /// `Options.prefetchesSnapshot` decodes every chunk in the background after open: the
    /// forged one records the damage there (no crash), and the next operation throws it.
    @Test func aPrefetchThatMeetsTheForgedChunkSurfacesAsTheTypedError() throws {
        let forged = try ForgedChunkStore.make()
        defer { forged.directory.remove() }
        let store = try forged.open(prefetching: true)
        defer { try? store.close() }
        let deadline = Date().addingTimeInterval(60)
        while store.snapshotDamage.error == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(store.snapshotDamage.error != nil, "the prefetch did not reach the forged chunk")
        let before = try forged.logAndSnapshots()
        let context = ObjectContext(store: store)
        let error = #expect(throws: StrataError.self) {
            try context.performAndWait { try context.count(for: FetchRequest(entityName: "Tag", predicate: try ObjectPredicate(format: "name CONTAINS 'tag'"))) }
        }
        #expect(error.map(forged.isTheDamage) == true)
        #expect(try forged.logAndSnapshots() == before)
    }

    /// Accidental damage is told apart from a forgery: a flipped bit in the chunk (checksum
    /// not recomputed) is refused as a checksum mismatch, by the open when it verifies every
    /// chunk (`verifiesSnapshotAtOpen`), and otherwise — nothing to fall back to, so the open
    /// reads no chunk — by the first read of that chunk, which every later operation repeats.
    @Test(arguments: [false, true]) func aBitFlipInAChunkIsDamageNotAForgery(verifiesAtOpen: Bool) throws {
        let forged = try ForgedChunkStore.make()
        defer { forged.directory.remove() }
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: forged.snapshot)))
        bytes[Int(forged.offset) + 100] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: forged.snapshot))
        var options = forged.options(prefetching: false)
        options.storage.verifiesSnapshotAtOpen = verifiesAtOpen
        guard !verifiesAtOpen else {
            let error = #expect(throws: StorageError.self) {
                _ = try PersistentStore.open(at: forged.path, schema: ForgedChunkStore.schema, options: options)
            }
            #expect(error?.code == .corrupted && error?.offset == forged.offset)
            #expect(error?.message.contains("checksum mismatch") == true)
            return
        }
        let store = try PersistentStore.open(at: forged.path, schema: ForgedChunkStore.schema, options: options)
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        for _ in 0..<2 {
            let error = #expect(throws: StrataError.self) {
                _ = try context.performAndWait { try context.fetch(FetchRequest(entityName: "Note")).map { try $0.value(forKey: "token") } }
            }
            let cause = error?.cause as? StorageError
            #expect(error?.code == .corrupted && cause?.offset == forged.offset && cause?.file == forged.snapshot)
            #expect(error?.message.contains("checksum mismatch") == true && error?.message.contains("authenticate") == false,
                    "\(error.map(String.init(describing:)) ?? "")")
        }
    }

    /// Runs `operation` on a freshly opened `store`; the error it threw, or `nil`.
    static func error(of operation: Operation, on store: PersistentStore, forged: ForgedChunkStore) async -> (any Error)? {
        let context = ObjectContext(store: store)
        let notes = FetchRequest(entityName: "Note", predicate: everyNote, sortKeys: [SortKey("rank")])
        let forgedID = ObjectID(storeID: store.storeID, entityName: "Note", primaryKey: forged.forgedKey)
        do {
            switch operation {
            case .fetch:
                _ = try context.performAndWait { try context.fetch(notes).map { try $0.value(forKey: "token") } }
            case .count:
                _ = try context.performAndWait { try context.count(for: notes) }
            case .fetchObjectIDs:
                _ = try context.performAndWait { try context.fetchObjectIDs(notes) }
            case .fetchDictionaries:
                _ = try context.performAndWait { try context.fetchDictionaries(notes) }
            case .faultFiring:
                _ = try context.performAndWait { try context.object(with: forgedID).value(forKey: "token") }
            case .existingObject:
                _ = try context.performAndWait { try context.existingObject(with: forgedID) }
            case .asynchronousFetch:
                _ = try await context.fetchObjectIDs(notes)
            case .fetchedResultsController:
                try context.performAndWait {
                    let controller = try FetchedResultsController(fetchRequest: notes, context: context)
                    try controller.performFetch()
                }
            case .observe:
                for try await _ in context.observe(notes) { break }
            case .batchUpdate:
                _ = try store.execute(BatchUpdateRequest(entityName: "Note", predicate: everyNote, propertiesToUpdate: ["rank": .constant(.int(7))]))
            case .batchDelete:
                _ = try store.execute(BatchDeleteRequest(entityName: "Note", predicate: everyNote))
            case .batchInsert:
                // Its uniqueness check reads every note's token.
                _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("late"), "token": .string("t")]]))
            case .saveDelete:
                try context.performAndWait {
                    context.delete(context.object(with: forgedID))
                    try context.save()
                }
            case .saveInsert:
                try context.performAndWait {
                    let note = try context.insert("Note")
                    try note.setValues(["title": .string("late"), "token": .string("t")])
                    try context.save()
                }
            case .checkpoint:
                try store.checkpoint()
            case .rotateKey:
                try store.rotateKey(to: .init(size: .bits256))
            case .exportRows:
                _ = try store.fetchRows(FetchRequest(entityName: "Note"))
            case .explain:
                _ = try store.fetchStrategy(notes)
            case .inspectorStatistics:
                _ = try StoreInspector.open(at: forged.path, cipher: AESGCMStoreCipher(key: forged.key)).statistics()
            case .inspectorInvariants:
                let inspector = try StoreInspector.open(at: forged.path, cipher: AESGCMStoreCipher(key: forged.key))
                var report = VerificationReport()
                inspector.verifyInvariants(into: &report)
                let finding = report.findings.first { $0.severity == .error }
                guard report.findings.filter({ $0.severity == .error }).count == 1, let finding,
                      finding.file == forged.snapshot, finding.offset == forged.offset,
                      finding.message.contains("does not authenticate") else {
                    return ForgeryFailed("invariants reported \(report.findings)")
                }
                // The finding is the damage itself; what the checks made of the
                // placeholder rows is not reported.
                return inspector.store.snapshotDamage.error
            }
        } catch {
            return error
        }
        return nil
    }
}
