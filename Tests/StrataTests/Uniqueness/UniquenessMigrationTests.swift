import Foundation
import Testing
@testable import Strata

/// Adding a uniqueness constraint to a store: a lightweight change, refused when rows
/// already share the values.
@Suite struct UniquenessMigrationTests {
    @Test func addingAConstraintOverDuplicatesIsRefusedWithTheList() throws {
        let fixture = try StoreFixture(UniquenessFixtures.unconstrained)
        defer { fixture.remove() }
        var people: [(String?, String?, Int64)] = [("a@x", "1", 0), ("a@x", "2", 0), ("b@x", "3", 0), (nil, "4", 0), (nil, "5", 0)]
        for i in 0..<30 { people += [("d\(i)", nil, 0), ("d\(i)", nil, 0)] }
        let ids = try UniquenessFixtures.save(fixture, people)
        try fixture.store.close()
        #expect(UniquenessFixtures.people.migrationChanges(from: UniquenessFixtures.unconstrained).map(\.kind) == [.uniquenessConstraintAdded])
        do {
            _ = try PersistentStore.open(at: fixture.directory.path, schema: UniquenessFixtures.people)
            Issue.record("the migration was accepted")
        } catch let error as StrataError {
            #expect(error.code == .constraintConflict, "\(error)")
            let cause = try #require(error.cause as? UniquenessConflicts)
            #expect(cause.totalCount == 31, "a@x and the 30 d's; nil is exempt")
            #expect(cause.conflicts.count == MigrationState.listedDuplicates)
            #expect(cause.conflicts[0].values == [.string("a@x")])
            #expect(cause.conflicts[0].objectIDs.map(\.primaryKey) == [ids[0].primaryKey, ids[1].primaryKey])
            #expect(error.message.contains("and 11 more"), "\(error.message)")
        }
        let reopened = try PersistentStore.open(at: fixture.directory.path, schema: UniquenessFixtures.unconstrained)
        #expect(reopened.schema.entity(named: "Person")?.uniquenessConstraints == [], "the store was left as it was")
        try reopened.close()
    }

    @Test func addingAConstraintToCleanRowsMigratesAndEnforcesIt() throws {
        let fixture = try StoreFixture(UniquenessFixtures.unconstrained)
        defer { fixture.remove() }
        try UniquenessFixtures.save(fixture, [("a@x", "1", 0), ("b@x", "2", 0)])
        try fixture.store.close()
        let store = try PersistentStore.open(at: fixture.directory.path, schema: UniquenessFixtures.people)
        defer { try? store.close() }
        #expect(throws: StrataError.self) {
            _ = try store.execute(BatchInsertRequest(entityName: "Person", objects: [["email": "b@x"]]))
        }
    }
}
