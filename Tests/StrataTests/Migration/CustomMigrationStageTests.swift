import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Migration plans with custom stages: app code reads the old version and writes the new,
/// in batches with progress, as part of the one migration transaction.
@Suite struct CustomMigrationStageTests {
    typealias F = MigrationFixtures

    static let v1 = try! Schema {
        Entity("Person") {
            Attribute("fullName", .string)
            Attribute("age", .int16, optional: true)
        }
    }
    static let v2 = try! Schema {
        Entity("Person") {
            Attribute("fullName", .string)
            Attribute("age", .int32, optional: true)
            Attribute("email", .string, optional: true)
        }
    }
    static let v3 = try! Schema {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("age", .int32, optional: true)
            Attribute("email", .string, optional: true)
        }
    }

    static let split = MigrationStage.custom(from: "2", to: "3", batchSize: 100) { context in
        try context.forEachObject(of: "Person") { person in
            guard case .string(let full) = try person.value(forKey: "fullName") else { return }
            let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
            try context.setValue(.string(parts.first ?? ""), forKey: "firstName", of: person)
            try context.setValue(.string(parts.dropFirst().first ?? ""), forKey: "lastName", of: person)
        }
    }

    static func plan(_ stage: MigrationStage = split, progress: (@Sendable (MigrationProgress) -> Void)? = nil) -> MigrationPlan {
        MigrationPlan(versions: [.init("1", v1), .init("2", v2), .init("3", v3)],
                      stages: [.lightweight(from: "1", to: "2"), stage], progress: progress)
    }

    /// A v1 store with `count` people named "first<i> last<i>"; with `checkpointed`, its rows
    /// in a snapshot (read by the migration's stages, mapped lazily by its lightweight ones).
    static func makeStore(count: Int = 250, checkpointed: Bool = false) throws -> (SimulatedFileSystem, StoreDump) {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: F.directory, schema: v1, options: F.options(fs))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for i in 0..<count {
                let person = try context.insert("Person")
                try person.setValue(.string("first\(i) last \(i)"), forKey: "fullName")
                try person.setValue(i % 4 == 0 ? .null : .int(Int64(i % 90)), forKey: "age")
            }
            try context.save()
        }
        let before = F.dump(store)
        if checkpointed { try store.checkpoint() }
        try store.close()
        return (fs, before)
    }

    static func expected(_ before: StoreDump) -> StoreDump {
        before.mapRows("Person") { row in
            guard case .string(let full)? = row.removeValue(forKey: "fullName") else { return }
            let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
            row["firstName"] = .string(parts[0])
            row["lastName"] = .string(parts[1])
            row["email"] = .null
        }
    }

    @Test(arguments: [false, true]) func customStageSplitsANameInBatchesWithProgress(fromSnapshot: Bool) throws {
        let (fs, before) = try Self.makeStore(checkpointed: fromSnapshot)
        let seen = Locked<[MigrationProgress]>([])
        let store = try PersistentStore.open(at: F.directory, migrationPlan: Self.plan { p in seen.withLock { $0.append(p) } },
                                             options: F.options(fs))
        #expect(F.dump(store) == Self.expected(before))
        #expect(store.schema == Self.v3)
        #expect(seen.withLock { $0.map(\.completed) } == [100, 200, 250])
        #expect(seen.withLock { $0.allSatisfy { $0.total == 250 && $0.entity == "Person" && $0.stage == "3" } })
        #expect(store.schemaHistory.map(\.label) == ["", "2", "3"])
        let migratedAt = store.lastLSN
        #expect(store.schemaHistory.dropFirst().allSatisfy { $0.lsn == migratedAt }, "both stages are one transaction")
        try store.close()
        // Replaying the record, and reopening with the plan (nothing left to do).
        let again = try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(), options: F.options(fs))
        #expect(F.dump(again) == Self.expected(before))
        #expect(again.lastLSN == migratedAt)
        try again.checkpoint()
        try again.close()
        let fromSnapshot = try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(), options: F.options(fs))
        #expect(F.dump(fromSnapshot) == Self.expected(before))
        #expect(fromSnapshot.schemaHistory.map(\.label) == ["", "2", "3"])
        try fromSnapshot.close()
    }

    @Test func aStoreAtAMiddleVersionRunsOnlyTheRemainingStages() throws {
        let (fs, before) = try Self.makeStore(count: 10)
        // Bring it to version 2 with a plan that stops there.
        let toTwo = MigrationPlan(versions: [.init("1", Self.v1), .init("2", Self.v2)])
        try PersistentStore.open(at: F.directory, migrationPlan: toTwo, options: F.options(fs)).close()
        let store = try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(), options: F.options(fs))
        #expect(F.dump(store) == Self.expected(before))
        #expect(store.schemaHistory.map(\.label) == ["", "2", "3"])
        #expect(store.schemaHistory[1].lsn < store.schemaHistory[2].lsn)
        try store.close()
    }

    @Test func aThrowingStageLeavesTheStoreAsItWas() throws {
        struct Refused: Error {}
        let (fs, before) = try Self.makeStore(count: 50)
        let log = try F.logBytes(fs)
        let failing = MigrationStage.custom(from: "2", to: "3", batchSize: 10) { context in
            var n = 0
            try context.forEachObject(of: "Person") { person in
                try context.setValue(.string("x"), forKey: "firstName", of: person)
                n += 1
                if n == 25 { throw Refused() }
            }
        }
        let error = #expect(throws: StrataError.self) {
            try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(failing), options: F.options(fs))
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.cause is Refused)
        #expect(try F.logBytes(fs) == log)
        let store = try PersistentStore.open(at: F.directory, options: F.options(fs))
        #expect(store.schema == Self.v1)
        #expect(F.dump(store) == before)
        try store.close()
    }

    @Test func aStageThatLeavesARequiredAttributeEmptyFails() throws {
        let (fs, _) = try Self.makeStore(count: 5)
        let log = try F.logBytes(fs)
        let partial = MigrationStage.custom(from: "2", to: "3") { context in
            try context.forEachObject(of: "Person") { person in
                try context.setValue(.string("a"), forKey: "firstName", of: person)
            }
        }
        let error = #expect(throws: StrataError.self) {
            try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(partial), options: F.options(fs))
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("required attribute Person.lastName has no value in 5 rows") == true)
        #expect(try F.logBytes(fs) == log)
    }

    @Test func badWritesAreTypedErrors() throws {
        let (fs, _) = try Self.makeStore(count: 1)
        let typo = MigrationStage.custom(from: "2", to: "3") { context in
            try context.forEachObject(of: "Person") { person in
                try context.setValue(.int(3), forKey: "firstName", of: person)
            }
        }
        let error = #expect(throws: StrataError.self) {
            try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(typo), options: F.options(fs))
        }
        #expect((error?.cause as? StrataError)?.code == .typeMismatch)
        let unknown = MigrationStage.custom(from: "2", to: "3") { context in
            try context.forEachObject(of: "Persn") { _ in }
        }
        let second = #expect(throws: StrataError.self) {
            try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(unknown), options: F.options(fs))
        }
        #expect((second?.cause as? StrataError)?.code == .unknownEntity)
    }

    @Test func aLightweightStageStillRefusesWhatNeedsCode() throws {
        let (fs, _) = try Self.makeStore(count: 3)
        let allLightweight = Self.plan(.lightweight(from: "2", to: "3"))
        let error = #expect(throws: StrataError.self) {
            try PersistentStore.open(at: F.directory, migrationPlan: allLightweight, options: F.options(fs))
        }
        #expect(error?.code == .migrationRequired)
        #expect((error?.cause as? MigrationRefusal)?.blocking.map(\.property) == ["firstName", "lastName"])
    }
}
