import Foundation
import Testing
@testable import Strata

/// Saves and uniqueness constraints: refused with `.constraintConflict` and nothing written,
/// or resolved by the merge policy (Core Data's semantics).
@Suite struct UniquenessSaveTests {
    typealias Row = UniquenessFixtures.Row

    /// Inserts people in a context with `policy` and saves; returns the objects and the
    /// save's error.
    static func insert(_ fixture: StoreFixture, policy: MergePolicy, _ people: [[String: AttributeValue]])
        -> (objects: [ManagedObject], error: StrataError?, context: ObjectContext) {
        let context = fixture.context("insert", policy: policy)
        let (objects, error) = context.performAndWait { () -> ([ManagedObject], StrataError?) in
            var objects: [ManagedObject] = []
            do {
                for values in people {
                    let person = try context.insert("Person")
                    try person.setValues(values)
                    objects.append(person)
                }
                try context.save()
                return (objects, nil)
            } catch {
                return (objects, error as? StrataError)
            }
        }
        return (objects, error, context)
    }

    @Test func aDuplicateOfAStoredRowIsRefusedNamingTheRowsAndValues() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        let stored = try UniquenessFixtures.save(fixture, [("a@x", "Ann", 1)])[0]
        let before = UniquenessFixtures.rows(fixture.store)
        let lsn = fixture.store.lastLSN
        let (objects, error, _) = Self.insert(fixture, policy: .error, [["email": "a@x", "name": "Bob"]])
        let conflict = try #require(error)
        #expect(conflict.code == .constraintConflict)
        #expect(conflict.entity == "Person")
        #expect(conflict.message.contains("Person [email] = [\"a@x\"]"), "\(conflict.message)")
        let cause = try #require(conflict.cause as? UniquenessConflicts)
        #expect(cause.conflicts.count == 1)
        #expect(cause.conflicts[0].properties == ["email"])
        #expect(cause.conflicts[0].values == [.string("a@x")])
        #expect(Set(cause.conflicts[0].objectIDs) == [stored, objects[0].objectID])
        #expect(UniquenessFixtures.rows(fixture.store) == before, "nothing was written")
        #expect(fixture.store.lastLSN == lsn)
    }

    @Test func twoInsertsWithOneValueInOneSaveAreRefused() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        let (objects, error, _) = Self.insert(fixture, policy: .error, [["email": "a@x"], ["email": "b@x"], ["email": "a@x"]])
        #expect(error?.code == .constraintConflict)
        let cause = try #require(error?.cause as? UniquenessConflicts)
        #expect(Set(cause.conflicts[0].objectIDs) == [objects[0].objectID, objects[2].objectID])
        #expect(UniquenessFixtures.rows(fixture.store).isEmpty)
    }

    @Test func nilValuesAreExemptAsInSQL() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        try UniquenessFixtures.save(fixture, [(nil, "A", 0), (nil, "B", 0)])
        #expect(UniquenessFixtures.rows(fixture.store).count == 2)
    }

    @Test func objectTrumpUpsertsTheStoredRowAndTakesOverItsID() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        let stored = try UniquenessFixtures.save(fixture, [("a@x", "Ann", 7), ("b@x", "Bea", 2)])
        let (objects, error, context) = Self.insert(fixture, policy: .objectTrump, [["email": "a@x", "name": "Annie"], ["email": "c@x"]])
        #expect(error == nil, "\(String(describing: error))")
        let rows = UniquenessFixtures.rows(fixture.store)
        #expect(rows.count == 3, "no second row for a@x")
        #expect(rows[stored[0].primaryKey] == Row(email: "a@x", name: "Annie", n: 7),
                "the inserted object's changed name wins; n, which it left at its default, keeps the stored value")
        try context.performAndWait {
            #expect(objects[0].objectID == stored[0], "the inserted object took over the stored row's ID")
            #expect(!objects[0].isInserted && !objects[0].hasChanges)
            #expect(context.object(with: stored[0]) === objects[0])
            #expect(try objects[0].int("n") == 7)
            try objects[0].setValue("Anne", forKey: "name")
            try context.save()
        }
        #expect(UniquenessFixtures.rows(fixture.store)[stored[0].primaryKey]?.name == "Anne", "later saves update the stored row")
    }

    @Test func storeTrumpKeepsTheStoredValues() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        let stored = try UniquenessFixtures.save(fixture, [("a@x", "Ann", 7)])
        let (objects, error, context) = Self.insert(fixture, policy: .storeTrump, [["email": "a@x", "name": "Annie", "n": 9]])
        #expect(error == nil)
        #expect(UniquenessFixtures.rows(fixture.store) == [stored[0].primaryKey: Row(email: "a@x", name: "Ann", n: 7)])
        context.performAndWait { #expect(objects[0].objectID == stored[0]) }
    }

    @Test func objectTrumpMergesDuplicateInsertsOfOneSave() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        let (objects, error, context) = Self.insert(fixture, policy: .objectTrump,
                                                     [["email": "a@x", "name": "first", "n": 1], ["email": "a@x", "name": "second"]])
        #expect(error == nil)
        let rows = UniquenessFixtures.rows(fixture.store)
        #expect(rows == [objects[0].objectID.primaryKey: Row(email: "a@x", name: "second", n: 1)])
        context.performAndWait {
            #expect(!objects[0].isInserted)
            #expect(objects[1].context == nil || !objects[1].hasChanges, "the merged duplicate is dropped")
        }
    }

    @Test func anUpdateOntoAnotherRowsValueIsRefusedUnderEveryPolicy() throws {
        for policy in [MergePolicy.error, .objectTrump, .storeTrump] {
            let fixture = try StoreFixture(UniquenessFixtures.people)
            defer { fixture.remove() }
            let ids = try UniquenessFixtures.save(fixture, [("a@x", "Ann", 0), ("b@x", "Bea", 0)])
            let context = fixture.context("update", policy: policy)
            let error = context.performAndWait { () -> StrataError? in
                do {
                    try context.existingObject(with: ids[1]).setValue("a@x", forKey: "email")
                    try context.save()
                    return nil
                } catch { return error as? StrataError }
            }
            #expect(error?.code == .constraintConflict, "\(policy)")
            #expect(UniquenessFixtures.rows(fixture.store)[ids[1].primaryKey]?.email == "b@x")
        }
    }

    @Test func swappingValuesInOneSaveIsAllowed() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        let ids = try UniquenessFixtures.save(fixture, [("a@x", "Ann", 0), ("b@x", "Bea", 0)])
        let context = fixture.context("swap")
        try context.performAndWait {
            try context.existingObject(with: ids[0]).setValue("b@x", forKey: "email")
            try context.existingObject(with: ids[1]).setValue("a@x", forKey: "email")
            try context.save()
        }
        #expect(UniquenessFixtures.rows(fixture.store)[ids[0].primaryKey]?.email == "b@x")
    }

    @Test func theConstraintHoldsAfterReopen() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        try UniquenessFixtures.save(fixture, [("a@x", "Ann", 0)])
        try fixture.reopen()
        let (_, error, _) = Self.insert(fixture, policy: .error, [["email": "a@x"]])
        #expect(error?.code == .constraintConflict)
    }
}
