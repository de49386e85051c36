import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// A crash at every I/O call of a migration — the open that migrates, the checkpoint after
/// it, the close — reopens to the old schema with the old data or to the new schema with all
/// data migrated, never a mix, after a power loss and after a process crash; and opening
/// again with the new schema then completes the migration.
///
/// Knobs: `STRATA_MIGRATION_CRASH_SEEDS` (power-loss images per crash point, default 2; a
/// deep run uses 50 or more).
@Suite struct MigrationCrashTests {
    typealias F = MigrationFixtures

    struct Scenario {
        var name: String
        var open: (SimulatedFileSystem) throws -> PersistentStore
        var expected: StoreDump
        var newSchema: Schema
        var oldSchema: Schema = F.v1
        var make: () throws -> (SimulatedFileSystem, StoreDump) = { try F.makeStore() }
    }

    /// The store's state after a crash: which of the two it is, or a failure.
    static func check(_ image: SimulatedFileSystem, _ scenario: Scenario, before: StoreDump, acknowledged: Bool,
                      _ what: String) {
        do {
            let store = try PersistentStore.open(at: F.directory, options: F.options(image))
            let dump = F.dump(store)
            let isOld = store.schema == scenario.oldSchema && dump == before
            let isNew = store.schema == scenario.newSchema.withoutOriginalNames && dump == scenario.expected
            #expect(isOld || isNew, "\(what): reopened to neither the old nor the migrated store (schema \(store.schema.entities.map(\.name)))")
            #expect(isNew || !acknowledged, "\(what): the open that migrated returned, but the migration was lost")
            try store.close()
            let again = try scenario.open(image)
            #expect(F.dump(again) == scenario.expected, "\(what): migrating after the crash differs")
            try again.close()
        } catch {
            Issue.record("\(what): reopening failed: \(error)")
        }
    }

    static func sweep(_ scenario: Scenario) throws -> Int {
        let seeds = testKnob("STRATA_MIGRATION_CRASH_SEEDS", default: 2)
        let (base, before) = try scenario.make()
        // The reference run: how many I/O calls the migration makes.
        let reference = base.processCrashImage()
        let store = try scenario.open(reference)
        #expect(F.dump(store) == scenario.expected, "\(scenario.name): the migration itself is wrong")
        try store.checkpoint()
        try store.close()
        let calls = reference.callCount
        var checked = 0
        for point in 1...calls {
            let fs = base.processCrashImage()
            fs.crash(atCall: point)
            var acknowledged = false
            if let store = try? scenario.open(fs) {
                acknowledged = true
                _ = try? store.checkpoint()
                try? store.close()
            }
            for seed in 0..<seeds {
                check(fs.powerLossImage(seed: UInt64(point * 1000 + seed)), scenario, before: before, acknowledged: acknowledged,
                      "\(scenario.name): power loss \(seed) at call \(point) of \(calls)")
                checked += 1
            }
            check(fs.processCrashImage(), scenario, before: before, acknowledged: acknowledged, "\(scenario.name): process crash at call \(point) of \(calls)")
            checked += 1
        }
        print("migration crash sweep (\(scenario.name)): \(calls) I/O calls, \(checked) crash images reopened")
        return calls
    }

    @Test func lightweightMigrationSurvivesACrashAtEveryCall() throws {
        let (_, before) = try F.makeStore()
        var v2 = F.edit(F.v1, entity: "Book") {
            $0.attributes[0] = Attribute("name", .string, originalName: "title")
            $0.attributes[1].type = .double
            $0.attributes.append(Attribute("language", .string, default: .string("en")))
        }
        v2.entities[0].attributes.removeAll { $0.name == "nickname" }
        let expected = before.mapRows("Book") { row in
            row["name"] = row.removeValue(forKey: "title")
            if case .int(let pages)? = row["pages"] { row["pages"] = .double(Double(pages)) }
            row["language"] = .string("en")
        }.mapRows("Author") { $0["nickname"] = nil }
        let scenario = Scenario(name: "lightweight", open: { fs in
            try PersistentStore.open(at: F.directory, schema: v2, options: F.options(fs))
        }, expected: expected, newSchema: v2)
        let calls = try Self.sweep(scenario)
        #expect(calls > 5)
    }

    @Test func customPlanSurvivesACrashAtEveryCall() throws {
        typealias C = CustomMigrationStageTests
        let (_, before) = try C.makeStore(count: 40)
        let scenario = Scenario(name: "custom plan", open: { fs in
            try PersistentStore.open(at: F.directory, migrationPlan: C.plan(), options: F.options(fs))
        }, expected: C.expected(before), newSchema: C.v3, oldSchema: C.v1, make: { try C.makeStore(count: 40) })
        let calls = try Self.sweep(scenario)
        #expect(calls > 5)
    }

    /// A custom stage that inserts objects, relates them and deletes others (an entity split).
    @Test func entitySplitSurvivesACrashAtEveryCall() throws {
        typealias S = EntitySplitMigrationTests
        let (_, before) = try S.makeStore(count: 30)
        let scenario = Scenario(name: "entity split", open: { fs in
            try PersistentStore.open(at: F.directory, migrationPlan: S.plan(), options: F.options(fs))
        }, expected: S.expected(before), newSchema: S.v2, oldSchema: S.v1, make: { try S.makeStore(count: 30) })
        let calls = try Self.sweep(scenario)
        #expect(calls > 5)
    }
}
