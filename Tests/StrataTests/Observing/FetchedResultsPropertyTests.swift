import Foundation
import PropertyBased
import Testing
import StrataTestSupport
@testable import Strata

/// The property the controller lives by: its changes, applied to its previous results,
/// give exactly a fresh fetch — over random saves (its own context's and others'), batch
/// updates, deletes and inserts, with and without sections, limits and predicates.
@Suite struct FetchedResultsPropertyTests {
    /// One random step: an operation code and the values it draws from.
    struct Step: Sendable, CustomStringConvertible {
        var operation: Int
        var a: Int
        var b: Int
        var description: String { "(\(operation), \(a), \(b))" }
    }

    struct Scenario: Sendable, CustomStringConvertible {
        var sections: Bool
        var predicate: Bool
        var limit: Int
        var steps: [Step]
        var description: String { "sections: \(sections), predicate: \(predicate), limit: \(limit), steps: \(steps)" }
    }

    static let scenarios = Generator<Scenario, Shrink.None<Scenario>> { rng in
        Scenario(sections: Bool.random(using: &rng), predicate: Bool.random(using: &rng),
                 limit: Int.random(in: 0...3, using: &rng) == 0 ? Int.random(in: 1...15, using: &rng) : 0,
                 steps: (0..<Int.random(in: 1...25, using: &rng)).map { _ in
                     Step(operation: Int.random(in: 0...8, using: &rng), a: Int.random(in: 0...1000, using: &rng),
                          b: Int.random(in: 0...1000, using: &rng))
                 })
    }

    @Test func changesAppliedToThePreviousResultsGiveAFreshFetch() async throws {
        await propertyCheck(count: 40, input: Self.scenarios) { scenario in
            try Self.run(scenario)
        }
    }

    static func run(_ scenario: Scenario) throws {
        let fixture = try StoreFixture(ObservingFixture.schema, options: ObservingFixture.options)
        defer { fixture.remove() }
        let writer = fixture.context("writer"), other = fixture.context("other")
        try ObservingFixture.insert(writer, count: 30, seed: 0)
        var request = scenario.sections || scenario.predicate ? ObservingFixture.undoneByGroup
            : FetchRequest(entityName: "Task", sortKeys: [SortKey("rank"), SortKey("title", ascending: false)])
        if !scenario.predicate { request.predicate = nil }
        request.fetchLimit = scenario.limit
        let sectionKey = scenario.sections ? "group" : nil
        let collected = Collected<FetchedResultsChange>()
        let (view, controller) = try FetchedResultsControllerTests.controller(fixture.store, request, sectionKey: sectionKey, collected: collected)
        var ids = view.performAndWait { controller.fetchedObjectIDs }
        var names = view.performAndWait { controller.sections.map(\.name) }
        var seen = 0
        var rows = GraphDump(fixture.store).entities["Task"] ?? [:]

        for (number, step) in scenario.steps.enumerated() {
            try perform(step, number: number, store: fixture.store, writer: writer, other: other, view: view)
            try view.performAndWait { try controller.processPendingChanges() }
            let newRows = GraphDump(fixture.store).entities["Task"] ?? [:]
            let fresh = try ObservingFixture.fresh(request, in: view, sectionKey: sectionKey)
            let emitted = Array(collected.values.dropFirst(seen))
            seen += emitted.count
            #expect(emitted.count <= 1, "one transaction gives at most one change")
            let previous = ids
            for change in emitted {
                ids = try #require(ids.applying(change.objects), "the difference applies")
                names = try #require(names.applying(change.sections), "the section difference applies")
                #expect(change.updatedOffsets.allSatisfy { ids.indices.contains($0) && previous.contains(ids[$0]) },
                        "updated objects were there before and are there after")
                let changedRows = Set(ids.filter { previous.contains($0) && rows[$0.primaryKey] != newRows[$0.primaryKey] })
                #expect(changedRows.isSubset(of: Set(change.updatedOffsets.map { ids[$0] })), "every changed result is reported")
            }
            if emitted.isEmpty {
                #expect(!ids.contains { rows[$0.primaryKey] != newRows[$0.primaryKey] }, "no change reported, so no result changed")
            }
            #expect(ids == fresh.ids, "after step \(number) \(step)")
            #expect(view.performAndWait { controller.fetchedObjectIDs } == fresh.ids)
            let sections = view.performAndWait { controller.sections }
            #expect(names == sections.map(\.name))
            #expect(sections.map(\.name) == fresh.names)
            #expect(sections.map(\.numberOfObjects) == fresh.names.map { fresh.sections[$0]! })
            rows = newRows
        }
    }

    /// Carries out one random operation.
    static func perform(_ step: Step, number: Int, store: PersistentStore, writer: ObjectContext,
                        other: ObjectContext, view: ObjectContext) throws {
        let existing = store.currentVersion.tables[0].allKeys.map {
            ObjectID(storeID: store.storeID, entityName: "Task", primaryKey: $0)
        }
        func pick(_ n: Int) -> ObjectID? { existing.isEmpty ? nil : existing[n % existing.count] }
        func update(_ context: ObjectContext) throws {
            try context.performAndWait {
                for n in [step.a, step.b] {
                    guard let id = pick(n) else { continue }
                    let task = context.object(with: id)
                    switch n % 4 {
                    case 0: try task.setValue(.int(Int64(n % 13)), forKey: "rank")
                    case 1: try task.setValue(ObservingFixture.groups[n % 4], forKey: "group")
                    case 2: try task.setValue(.bool(n % 3 == 0), forKey: "done")
                    default: try task.setValue(.string("renamed \(n)"), forKey: "title")
                    }
                }
                try context.save()
                context.reset()
            }
        }
        switch step.operation {
        case 0: try ObservingFixture.insert(writer, count: 1 + step.a % 3, seed: step.b)
        case 1: try update(writer)
        case 2:
            try writer.performAndWait {
                guard let id = pick(step.a) else { return }
                writer.delete(writer.object(with: id))
                try writer.save()
            }
        case 3: try update(other)
        case 4: try update(view)   // the controller's own context saves
        case 5:
            let update = BatchUpdateRequest(entityName: "Task", predicate: try ObjectPredicate(format: "rank < %@", Int64(step.a % 12)),
                                            propertiesToUpdate: step.b % 2 == 0 ? ["done": .not("done")] : ["rank": .add("rank", .int(Int64(step.b % 5)))])
            _ = try store.execute(update)
        case 6:
            _ = try store.execute(BatchDeleteRequest(entityName: "Task", predicate: try ObjectPredicate(format: "rank == %@", Int64(step.a % 12))))
        case 7:
            var insert = BatchInsertRequest(entityName: "Task", count: 1 + step.a % 4) { i, row in
                row = ["title": .string("b\(number)-\(i)"), "group": ObservingFixture.groups[(step.b + i) % 4],
                       "rank": .int(Int64((step.b + i) % 11)), "done": .bool((step.a + i) % 3 == 0)]
            }
            insert.resultType = .statusOnly
            _ = try store.execute(insert)
        default:
            // A save that touches no result's sort key: a title change, or nothing at all.
            try writer.performAndWait {
                if let id = pick(step.a) { try writer.object(with: id).setValue(.string("same \(step.b)"), forKey: "title") }
                try writer.save()
            }
        }
    }
}
