import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataStorage

/// A read-only store following the writer in the same process: `refresh()` and the
/// automatic refresh, observers updated through the commit path, and the edge cases of a
/// live log (a torn tail, a segment deleted by a checkpoint, a new snapshot).
@Suite struct StoreFollowerTests {
    /// Options for a reader of a fixture's store.
    static func readerOptions(follow interval: Duration? = nil) -> PersistentStore.Options {
        var options = PersistentStore.Options.readOnly
        options.followInterval = interval
        return options
    }

    /// The live (newest) log segment of the store in `directory`.
    static func liveSegment(_ directory: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        let newest = try #require(names.compactMap { name in StoreFileNames.segmentLSN(name).map { (name, $0) } }.max { $0.1 < $1.1 })
        return "\(directory)/\(newest.0)"
    }

    /// The first element of `stream` that satisfies `condition`, or `nil` if the stream ends
    /// or the failsafe `timeout` passes first.
    static func first(of stream: AsyncThrowingStream<[ObjectID], any Error>, timeout: Duration = .seconds(60),
                      where condition: @escaping @Sendable ([ObjectID]) -> Bool) async throws -> [ObjectID]? {
        try await withThrowingTaskGroup(of: [ObjectID]?.self) { group in
            group.addTask {
                for try await ids in stream where condition(ids) { return ids }
                return nil
            }
            group.addTask { try await Task.sleep(for: timeout); return nil }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func refreshAppliesTheWritersCommitsAndUpdatesEveryObserver() async throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 8, seed: 4)
        let reader = try PersistentStore.open(at: fixture.directory.path, options: Self.readerOptions())
        defer { try? reader.close() }
        #expect(try reader.refresh() == 0, "nothing new yet")
        let view = ObjectContext(store: reader, name: "view")
        let loaded = try view.performAndWait {
            view.automaticallyMergesChangesFromStore = true
            return try ids.map { id in let object = try view.existingObject(with: id); _ = try object.int("rank"); return object }
        }
        let controller = try FetchedResultsController(fetchRequest: ObservingFixture.undoneByGroup, context: view, sectionNameKey: "group")
        try view.performAndWait { try controller.performFetch() }
        let stream = view.observe(FetchRequest(entityName: "Task", sortKeys: [SortKey("title")]))
        let changes = Collected<StoreChange>()
        let token = reader.observeChanges { changes.append($0) }
        defer { token.cancel() }

        try writer.performAndWait {
            try writer.object(with: ids[0]).setValue(99, forKey: "rank")
            writer.delete(writer.object(with: ids[1]))
            try writer.save()
        }
        try ObservingFixture.insert(writer, count: 3, seed: 5)
        _ = try fixture.store.execute(BatchUpdateRequest(entityName: "Task", propertiesToUpdate: ["done": .constant(false)]))
        _ = try fixture.store.execute(BatchDeleteRequest(objectIDs: [ids[2]]))

        #expect(try reader.refresh() == 4)
        #expect(reader.lastLSN == fixture.store.lastLSN)
        #expect(GraphDump(reader) == GraphDump(fixture.store), "the reader's state is the writer's")
        #expect(changes.values.map(\.kind) == [.save, .save, .batchUpdate, .batchDelete], "one announcement per transaction, in order")
        #expect(changes.values.map(\.lsn) == Array((fixture.store.lastLSN - 3)...fixture.store.lastLSN))
        #expect(changes.values[0].updated == [ids[0]] && changes.values[0].deleted == [ids[1]])
        #expect(changes.values[3].deleted == [ids[2]])

        #expect(try waitUntil(view) { try loaded[0].int("rank") == 99 }, "the merging context reloaded the updated object")
        #expect(waitUntil(view) { loaded[1].isDeleted && loaded[2].isDeleted }, "deleted elsewhere: deleted state")
        let fresh = try ObservingFixture.fresh(ObservingFixture.undoneByGroup, in: view, sectionKey: "group")
        #expect(waitUntil(view) { controller.fetchedObjectIDs == fresh.ids }, "the controller follows")
        let expected = try ObservingFixture.fresh(FetchRequest(entityName: "Task", sortKeys: [SortKey("title")]), in: view, sectionKey: nil).ids
        #expect(try await Self.first(of: stream) { $0 == expected } != nil, "the live query follows")
    }

    @Test func aTornTailIsNotYetWrittenAtEveryCut() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        try ObservingFixture.insert(writer, count: 3, seed: 6)
        let reader = try PersistentStore.open(at: fixture.directory.path, options: Self.readerOptions())
        defer { try? reader.close() }
        let segment = try Self.liveSegment(fixture.directory.path)
        let frameStart = try #require(FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)
        try ObservingFixture.insert(writer, count: 2, seed: 7)
        let last = fixture.store.lastLSN
        let expected = GraphDump(fixture.store)
        try fixture.store.close()   // nothing else writes the segment from here on
        let whole = try Data(contentsOf: URL(fileURLWithPath: segment))
        #expect(whole.count > frameStart + 48, "the last transaction is one frame after frameStart")
        // The writer in the middle of writing the last frame: every prefix of it.
        for cut in frameStart..<whole.count {
            try whole.prefix(cut).write(to: URL(fileURLWithPath: segment))
            #expect(try reader.refresh() == 0, "cut at \(cut): not yet written, and no error")
            #expect(reader.lastLSN == last - 1)
        }
        // Its bytes in place but one flipped (the writer has not finished overwriting it).
        var flipped = whole
        flipped[whole.count - 1] ^= 0x40
        try flipped.write(to: URL(fileURLWithPath: segment))
        #expect(try reader.refresh() == 0)
        try whole.write(to: URL(fileURLWithPath: segment))
        #expect(try reader.refresh() == 1, "the frame is whole now")
        #expect(reader.lastLSN == last)
        #expect(GraphDump(reader) == expected)
        #expect(reader.following.reopens.withLock { $0 } == 0, "a torn tail never makes the reader start over")
    }

    @Test func aSegmentDeletedByACheckpointReopensFromTheSnapshot() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 5, seed: 8)
        let reader = try PersistentStore.open(at: fixture.directory.path, options: Self.readerOptions())
        defer { try? reader.close() }
        let view = ObjectContext(store: reader, name: "view")
        let loaded = try view.performAndWait {
            view.automaticallyMergesChangesFromStore = true
            return try ids.map { id in let object = try view.existingObject(with: id); _ = try object.int("rank"); return object }
        }
        let controller = try FetchedResultsController(fetchRequest: ObservingFixture.undoneByGroup, context: view, sectionNameKey: "group")
        try view.performAndWait { try controller.performFetch() }
        let changes = Collected<StoreChange>()
        let token = reader.observeChanges { changes.append($0) }
        defer { token.cancel() }
        // Transactions the reader has not read, then a checkpoint that deletes their segment.
        try writer.performAndWait {
            try writer.object(with: ids[0]).setValue(77, forKey: "rank")
            writer.delete(writer.object(with: ids[1]))
            try writer.save()
        }
        let added = try ObservingFixture.insert(writer, count: 2, seed: 9)
        try fixture.store.checkpoint()
        try writer.performAndWait {
            try writer.object(with: ids[2]).setValue("after", forKey: "title")
            try writer.save()
        }
        let before = reader.lastLSN
        #expect(try reader.refresh() == Int(fixture.store.lastLSN - before))
        #expect(reader.following.reopens.withLock { $0 } == 1, "it opened the store again from the snapshot")
        #expect(GraphDump(reader) == GraphDump(fixture.store))
        let all = changes.values
        #expect(Set(all.flatMap(\.inserted)) == Set(added))
        #expect(Set(all.flatMap(\.deleted)) == [ids[1]])
        #expect(Set(all.flatMap(\.updated)).isSuperset(of: [ids[0], ids[2]]))
        #expect(try waitUntil(view) { try loaded[0].int("rank") == 77 && loaded[1].isDeleted })
        let fresh = try ObservingFixture.fresh(ObservingFixture.undoneByGroup, in: view, sectionKey: "group")
        #expect(waitUntil(view) { controller.fetchedObjectIDs == fresh.ids })
        // And it follows the new segment from there, without starting over again.
        try ObservingFixture.insert(writer, count: 1, seed: 10)
        #expect(try reader.refresh() == 1)
        #expect(reader.following.reopens.withLock { $0 } == 1)
        #expect(GraphDump(reader) == GraphDump(fixture.store))
    }

    @Test func aSegmentDeletedBetweenListingAndReadingReopensFromTheSnapshot() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        try ObservingFixture.insert(writer, count: 3, seed: 18)
        let files = ListingHookFileSystem()
        var options = Self.readerOptions()
        options.storage.fileSystem = files
        let reader = try PersistentStore.open(at: fixture.directory.path, options: options)
        defer { try? reader.close() }
        try ObservingFixture.insert(writer, count: 2, seed: 19)
        // The writer checkpoints right after the reader listed the directory, before it
        // opens the segment it listed: the segment is gone when it reads it.
        let store = fixture.store
        files.afterNextListing { _ = try? store.checkpoint() }
        #expect(try reader.refresh() == 1)
        #expect(reader.following.reopens.withLock { $0 } == 1)
        #expect(GraphDump(reader) == GraphDump(fixture.store))
    }

    @Test func aNewSnapshotAfterTheTailWasReadIsFollowedThroughTheNextSegment() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        try ObservingFixture.insert(writer, count: 4, seed: 11)
        let reader = try PersistentStore.open(at: fixture.directory.path, options: Self.readerOptions())
        defer { try? reader.close() }
        try ObservingFixture.insert(writer, count: 2, seed: 12)
        #expect(try reader.refresh() == 1)
        try fixture.store.checkpoint()
        try ObservingFixture.insert(writer, count: 2, seed: 13)
        _ = try fixture.store.execute(BatchUpdateRequest(entityName: "Task", propertiesToUpdate: ["rank": .constant(3)]))
        #expect(try reader.refresh() == 2)
        #expect(reader.following.reopens.withLock { $0 } == 0, "the reader had read the old segment: it moves on to the new one")
        #expect(GraphDump(reader) == GraphDump(fixture.store))
    }

    @Test func automaticFollowingUpdatesAControllerWithoutRefresh() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        try ObservingFixture.insert(writer, count: 2, seed: 14)
        let reader = try PersistentStore.open(at: fixture.directory.path, options: Self.readerOptions(follow: .milliseconds(2)))
        defer { try? reader.close() }
        let view = ObjectContext(store: reader, name: "view")
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task", sortKeys: [SortKey("title")]), context: view)
        try view.performAndWait { try controller.performFetch() }
        try ObservingFixture.insert(writer, count: 5, seed: 15)
        try fixture.store.checkpoint()
        try ObservingFixture.insert(writer, count: 1, seed: 16)
        #expect(waitUntil(view) { controller.count == 8 }, "the timer brought every commit in")
        #expect(reader.lastLSN == fixture.store.lastLSN)
        #expect(reader.followError == nil)
        #expect(try writer.performAndWait { try writer.fetchObjectIDs(FetchRequest(entityName: "Task", sortKeys: [SortKey("title")])) }
                == view.performAndWait { controller.fetchedObjectIDs })
    }

    @Test func aWritableStoreHasNothingToRefresh() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        try ObservingFixture.insert(fixture.context(), count: 1, seed: 17)
        #expect(try fixture.store.refresh() == 0)
    }

    @Test func aMigrationByTheWriterIsATypedError() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let reader = try PersistentStore.open(at: fixture.directory.path, options: Self.readerOptions())
        defer { try? reader.close() }
        try fixture.store.close()
        let withNote = try Schema {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("group", .string, optional: true)
                Attribute("rank", .int64, default: 0)
                Attribute("done", .bool, default: false)
                Attribute("note", .string, optional: true)
            }
        }
        let migrated = try PersistentStore.open(at: fixture.directory.path, schema: withNote, options: ObservingFixture.options)
        try migrated.close()
        let error = #expect(throws: StrataError.self) { try reader.refresh() }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("Open it again") == true)
    }
}

/// The real file system, with a hook that runs once right after the next directory listing.
final class ListingHookFileSystem: FileSystem {
    private let base = PosixFileSystem()
    private let hook = Locked<(@Sendable () -> Void)?>(nil)

    /// Runs `action` once, after the next `contentsOfDirectory` returns its listing.
    func afterNextListing(_ action: @escaping @Sendable () -> Void) { hook.withLock { $0 = action } }

    func contentsOfDirectory(_ path: String) throws -> [String] {
        let names = try base.contentsOfDirectory(path)
        let action = hook.withLock { hook in
            defer { hook = nil }
            return hook
        }
        action?()
        return names
    }

    func open(_ path: String, mode: FileOpenMode) throws -> any StrataStorage.FileHandle { try base.open(path, mode: mode) }
    func createDirectory(_ path: String) throws { try base.createDirectory(path) }
    func exists(_ path: String) -> Bool { base.exists(path) }
    func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    func rename(_ source: String, to destination: String) throws { try base.rename(source, to: destination) }
    func remove(_ path: String) throws { try base.remove(path) }
    func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
    func tryLock(_ path: String) throws -> (any FileLock)? { try base.tryLock(path) }
}
