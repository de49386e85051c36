import Foundation
import PropertyBased
import Testing
import StrataTestSupport
@testable import Strata

/// A fetched-results controller's results and changes, checked against fresh fetches.
@Suite struct FetchedResultsControllerTests {
    /// Makes a controller on a new private context and fetches.
    static func controller(_ store: PersistentStore, _ request: FetchRequest, sectionKey: String?,
                           collected: Collected<FetchedResultsChange>) throws -> (ObjectContext, FetchedResultsController<ManagedObject>) {
        let context = ObjectContext(store: store, name: "view")
        let controller = try FetchedResultsController(fetchRequest: request, context: context, sectionNameKey: sectionKey)
        try context.performAndWait {
            try controller.performFetch()
            controller.didChange = { collected.append($0) }
        }
        return (context, controller)
    }

    @Test func oneSaveIsOneInsertionAtItsPlace() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        try ObservingFixture.insert(writer, count: 20, seed: 1)
        let collected = Collected<FetchedResultsChange>()
        let request = FetchRequest(entityName: "Task", sortKeys: [SortKey("rank")])
        let (view, controller) = try Self.controller(fixture.store, request, sectionKey: nil, collected: collected)
        let before = view.performAndWait { controller.fetchedObjectIDs }
        let id = try writer.performAndWait {
            let task = try writer.insert("Task")
            try task.setValues(["title": "new", "rank": 5])
            try writer.save()
            return task.objectID
        }
        try view.performAndWait { try controller.processPendingChanges() }
        let after = view.performAndWait { controller.fetchedObjectIDs }
        #expect(collected.values.count == 1)
        let change = try #require(collected.values.first)
        #expect(change.removedOffsets.isEmpty && change.updatedOffsets.isEmpty && change.moves.isEmpty)
        #expect(change.insertedOffsets == [after.firstIndex(of: id)!])
        #expect(before.applying(change.objects) == after)
        #expect(after == (try ObservingFixture.fresh(request, in: view, sectionKey: nil).ids))
        #expect(change.lsn == fixture.store.lastLSN)

        // An update that does not move it is an update at its offset, not a move.
        try writer.performAndWait {
            try writer.object(with: id).setValue("renamed", forKey: "title")
            try writer.save()
        }
        try view.performAndWait { try controller.processPendingChanges() }
        let update = try #require(collected.values.last)
        #expect(collected.values.count == 2)
        #expect(update.objects.isEmpty)
        #expect(update.updatedOffsets == [after.firstIndex(of: id)!])

        // A change to another entity's rows, or none at all, reports nothing.
        try view.performAndWait { try controller.processPendingChanges() }
        #expect(collected.values.count == 2)
    }

    @Test func aMoveIsAnAssociatedRemovalAndInsertion() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        let ids = try ObservingFixture.insert(writer, count: 10, seed: 2)
        let collected = Collected<FetchedResultsChange>()
        let request = FetchRequest(entityName: "Task", sortKeys: [SortKey("rank"), SortKey("title")])
        let (view, controller) = try Self.controller(fixture.store, request, sectionKey: nil, collected: collected)
        let before = view.performAndWait { controller.fetchedObjectIDs }
        let first = before[0]
        try writer.performAndWait {
            try writer.object(with: first).setValue(100, forKey: "rank")
            try writer.save()
        }
        try view.performAndWait { try controller.processPendingChanges() }
        let change = try #require(collected.values.first)
        #expect(change.moves.count == 1)
        #expect(change.moves.first?.from == 0 && change.moves.first?.to == ids.count - 1)
        #expect(change.updatedOffsets == [ids.count - 1])
        #expect(before.applying(change.objects) == view.performAndWait { controller.fetchedObjectIDs })
    }

    @Test func sectionsFollowTheirObjects() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        try ObservingFixture.insert(writer, count: 12, seed: 3)
        let collected = Collected<FetchedResultsChange>()
        let request = ObservingFixture.undoneByGroup
        let (view, controller) = try Self.controller(fixture.store, request, sectionKey: "group", collected: collected)
        let fresh = try ObservingFixture.fresh(request, in: view, sectionKey: "group")
        let sections = view.performAndWait { controller.sections }
        #expect(sections.map(\.name) == fresh.names)
        #expect(sections.map(\.name) == ["", "a", "b", "c"], "nil sorts first, as an empty name")
        #expect(sections.map(\.numberOfObjects) == fresh.names.map { fresh.sections[$0]! })

        // A new group appears as a section insertion; emptying one removes it.
        try writer.performAndWait {
            let task = try writer.insert("Task")
            try task.setValues(["title": "z", "group": "z"])
            try writer.save()
        }
        try view.performAndWait { try controller.processPendingChanges() }
        let inserted = try #require(collected.values.last)
        #expect(inserted.sections.insertions.count == 1 && inserted.sections.removals.isEmpty)
        #expect(view.performAndWait { controller.sections.map(\.name) } == ["", "a", "b", "c", "z"])
        var batch = BatchUpdateRequest(entityName: "Task", predicate: try ObjectPredicate(format: "group == 'a'"),
                                       propertiesToUpdate: ["done": .constant(true)])
        batch.resultType = .statusOnly
        _ = try fixture.store.execute(batch)
        try view.performAndWait { try controller.processPendingChanges() }
        let removed = try #require(collected.values.last)
        #expect(removed.sections.removals.count == 1)
        #expect(["", "a", "b", "c", "z"].applying(removed.sections) == ["", "b", "c", "z"])
        #expect(view.performAndWait { controller.sections.map(\.name) } == ["", "b", "c", "z"])
    }

    @Test func aBigBatchUpdateIsOneChange() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let count = 10_000   // more than an eighth of the rows changes: the fetch-again path
        var insert = BatchInsertRequest(entityName: "Task", count: count) { i, row in
            row = ["title": .string("t\(i)"), "rank": .int(Int64(i % 50)), "done": .bool(false)]
        }
        insert.resultType = .statusOnly
        _ = try fixture.store.execute(insert)
        let collected = Collected<FetchedResultsChange>()
        let request = FetchRequest(entityName: "Task", sortKeys: [SortKey("rank")])
        let (view, controller) = try Self.controller(fixture.store, request, sectionKey: nil, collected: collected)
        let before = view.performAndWait { controller.fetchedObjectIDs }
        _ = try fixture.store.execute(BatchUpdateRequest(entityName: "Task", propertiesToUpdate: ["done": .constant(true)]))
        try view.performAndWait { try controller.processPendingChanges() }
        #expect(collected.values.count == 1)
        let change = try #require(collected.values.first)
        #expect(change.objects.isEmpty, "no object moved: the sort key did not change")
        #expect(change.updatedOffsets == Array(0..<count))
        #expect(view.performAndWait { controller.fetchedObjectIDs } == before)

        // Reordering all of them is one change too, and applies.
        _ = try fixture.store.execute(BatchUpdateRequest(entityName: "Task", predicate: try ObjectPredicate(format: "rank < 25"),
                                                     propertiesToUpdate: ["rank": .add("rank", 100)]))
        try view.performAndWait { try controller.processPendingChanges() }
        #expect(collected.values.count == 2)
        let after = view.performAndWait { controller.fetchedObjectIDs }
        #expect(before.applying(collected.values[1].objects) == after)
        #expect(after == (try ObservingFixture.fresh(request, in: view, sectionKey: nil).ids))
    }

    @Test func changesArriveWithoutBeingAskedFor() async throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer")
        try ObservingFixture.insert(writer, count: 5, seed: 4)
        let view = ObjectContext(store: fixture.store, name: "view")
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task"), context: view)
        try view.performAndWait { try controller.performFetch() }
        let stream = controller.changes
        try ObservingFixture.insert(writer, count: 2, seed: 5)
        // Bounded only as a failsafe: the change is delivered whatever the machine's load.
        let change = try await firstElement(of: stream, timeout: .seconds(60))
        #expect(change?.insertedOffsets == [5, 6])
        #expect(view.performAndWait { controller.count } == 7)
    }

    @Test func misuseIsAnError() throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let context = fixture.context("view")
        let unsorted = #expect(throws: StrataError.self) {
            _ = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task", sortKeys: [SortKey("rank")]),
                                         context: context, sectionNameKey: "group")
        }
        #expect(unsorted?.code == .misuse)
        #expect(unsorted?.message.contains("first sort key") == true)
        let unknown = #expect(throws: StrataError.self) {
            _ = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task"), context: context, sectionNameKey: "gruop")
        }
        #expect(unknown?.code == .unknownKey)
        let badEntity = #expect(throws: StrataError.self) {
            _ = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Tsak"), context: context)
        }
        #expect(badEntity?.code == .unknownEntity)
        let controller = try FetchedResultsController(fetchRequest: FetchRequest(entityName: "Task"), context: context)
        let offQueue = #expect(throws: StrataError.self) { try controller.performFetch() }
        #expect(offQueue?.code == .misuse)
        let early = #expect(throws: StrataError.self) { try context.performAndWait { try controller.processPendingChanges() } }
        #expect(early?.code == .misuse)
    }
}

/// The first element of `stream`, or `nil` when none came within `timeout` (a failsafe).
func firstElement<Element: Sendable>(of stream: AsyncStream<Element>, timeout: Duration) async throws -> Element? {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
