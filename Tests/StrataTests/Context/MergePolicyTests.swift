import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Every merge policy with a real conflict between two contexts on one store.
///
/// The setup of each test: a note saved as (title "t0", body "b0", count 0); contexts A and B
/// both read it; B changes title and count and saves; A changes title and body and saves
/// with the policy under test.
@Suite struct MergePolicyTests {
    /// The stored (title, body, count) of a note.
    struct Stored: Equatable, CustomStringConvertible {
        var title: String?, body: String?, count: Int64?
        var description: String { "(\(title ?? "nil"), \(body ?? "nil"), \(count.map(String.init) ?? "nil"))" }
    }

    /// Reads the note `id` through a fresh context.
    static func stored(_ fixture: StoreFixture, _ id: ObjectID) throws -> Stored {
        let context = fixture.context("check")
        return try context.performAndWait {
            let note = try context.existingObject(with: id)
            return Stored(title: try note.string("title"), body: try note.string("body"), count: try note.int("count"))
        }
    }

    /// Runs the conflict with A's `policy`; returns the store, the note's ID, A's context, the
    /// error of A's save (if any) and A's object.
    static func conflict(_ policy: MergePolicy) throws -> (StoreFixture, ObjectID, ObjectContext, (any Error)?, ManagedObject) {
        let fixture = try StoreFixture(GraphSchemas.notes)
        let seed = fixture.context("seed")
        let id = try seed.performAndWait {
            let note = try seed.insert("Note")
            try note.setValues(["title": "t0", "body": "b0", "count": 0])
            try seed.save()
            return note.objectID
        }
        let a = fixture.context("A", policy: policy), b = fixture.context("B")
        // A keeps its object: a context holds unchanged objects only while the caller does.
        let held = try a.performAndWait { () throws in
            let note = try a.existingObject(with: id)
            _ = try note.string("title")
            return note
        }
        try b.performAndWait { () throws in
            let note = try b.existingObject(with: id)
            try note.setValues(["title": "B-title", "count": 1])
            try b.save()
        }
        let error: (any Error)? = a.performAndWait {
            do {
                let note = a.object(with: id)
                #expect(note === held)
                try note.setValues(["title": "A-title", "body": "A-body"])
                try a.save()
                return nil
            } catch {
                return error
            }
        }
        return (fixture, id, a, error, held)
    }

    /// Checks the store and A's object both hold `expected`, and A has nothing left to save.
    static func expectResolved(_ policy: MergePolicy, _ expected: Stored) throws {
        let (fixture, id, a, error, held) = try conflict(policy)
        defer { fixture.remove() }
        #expect(error == nil, "\(policy): \(String(describing: error))")
        #expect(try stored(fixture, id) == expected, "\(policy)")
        try a.performAndWait { () throws in
            let note = a.object(with: id)
            #expect(note === held)
            #expect(!a.hasChanges)
            #expect(Stored(title: try note.string("title"), body: try note.string("body"), count: try note.int("count")) == expected,
                    "\(policy): A's object shows what was stored")
        }
        try fixture.reopen()
        #expect(try stored(fixture, id) == expected, "\(policy) after reopen")
    }

    @Test func errorPolicyNamesTheObjectAndKeysAndWritesNothing() throws {
        let (fixture, id, a, error, held) = try Self.conflict(.error)
        defer { fixture.remove() }
        let strata = try #require(error as? StrataError)
        #expect(strata.code == .conflict)
        #expect(strata.message.contains("Note \(id.primaryKey)"), "\(strata.message)")
        #expect(strata.message.contains("keys: title, count"), "the store's changed keys: \(strata.message)")
        #expect(strata.message.contains("this context changed: body, title"), "\(strata.message)")
        #expect(try Self.stored(fixture, id) == Stored(title: "B-title", body: "b0", count: 1))
        // A keeps its changes; after a merging refresh it can save them.
        try a.performAndWait { () throws in
            let note = a.object(with: id)
            #expect(note === held)
            #expect(note.changedValues() == ["title": "A-title", "body": "A-body"])
            a.refresh(note, mergeChanges: true)
            try a.save()
        }
        #expect(try Self.stored(fixture, id) == Stored(title: "A-title", body: "A-body", count: 1))
    }

    @Test func storeTrumpKeepsTheStoresChangedKeysAndMyOthers() throws {
        try Self.expectResolved(.storeTrump, Stored(title: "B-title", body: "A-body", count: 1))
    }

    @Test func objectTrumpKeepsMyChangedKeysAndTheStoresOthers() throws {
        try Self.expectResolved(.objectTrump, Stored(title: "A-title", body: "A-body", count: 1))
    }

    @Test func overwriteWritesMyWholeView() throws {
        try Self.expectResolved(.overwrite, Stored(title: "A-title", body: "A-body", count: 0))
    }

    @Test func rollbackDiscardsMyChanges() throws {
        try Self.expectResolved(.rollback, Stored(title: "B-title", body: "b0", count: 1))
    }

    @Test func conflictWithARowDeletedByTheOtherContext() throws {
        for policy in [MergePolicy.error, .storeTrump, .objectTrump, .overwrite, .rollback] {
            let fixture = try StoreFixture(GraphSchemas.notes)
            defer { fixture.remove() }
            let seed = fixture.context("seed")
            let (id, keptID) = try seed.performAndWait {
                let note = try seed.insert("Note"), kept = try seed.insert("Note")
                try note.setValues(["title": "t0", "body": "b0"])
                try kept.setValues(["title": "k0", "body": "k0"])
                try seed.save()
                return (note.objectID, kept.objectID)
            }
            let a = fixture.context("A", policy: policy), b = fixture.context("B")
            let held = try a.performAndWait { () throws in
                let note = try a.existingObject(with: id)
                _ = try note.string("title")
                return note
            }
            try b.performAndWait { () throws in
                b.delete(try b.existingObject(with: id))
                try b.save()
            }
            let lsn = fixture.store.lastLSN
            let error: (any Error)? = a.performAndWait {
                do {
                    try held.setValue("A-title", forKey: "title")
                    try a.object(with: keptID).setValue("A-kept", forKey: "title")
                    try a.save()
                    return nil
                } catch { return error }
            }
            if policy == .error {
                let strata = try #require(error as? StrataError)
                #expect(strata.code == .conflict)
                #expect(strata.message.contains("Note \(id.primaryKey) was deleted"), "\(strata.message)")
                #expect(strata.message.contains("title"))
                #expect(fixture.store.lastLSN == lsn, "nothing written")
            } else {
                // Documented behaviour: the store's delete wins; A's other changes are saved.
                #expect(error == nil, "\(policy): \(String(describing: error))")
                #expect(fixture.store.rowCounts["Note"] == 1, "\(policy): the deleted row stays deleted")
                #expect(try Self.stored(fixture, keptID).title == "A-kept", "\(policy)")
                #expect(throws: StrataError.self) { try a.performAndWait { try a.existingObject(with: id) } }
            }
        }
    }
}
