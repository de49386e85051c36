import Foundation
import Testing
@testable import Strata

/// How an upsert finds the stored rows it updates: through the constraint's index when a
/// reader has built it, by one pass over the rows otherwise (the index stays unbuilt). Both
/// must match the same rows, by `String`'s `==` (so a decomposed "é" finds a precomposed
/// one), and the entity's other constraints must still be checked.
@Suite struct UpsertMatchingTests {
    typealias Row = UniquenessFixtures.Row
    static let stored = 3_000

    /// A store holding `stored` people over several chunks, every 5th email with a
    /// precomposed "é", every 7th without an email.
    static func seeded() throws -> StoreFixture {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Person", count: stored) { i, row in
            row["email"] = i % 7 == 0 ? .null : .string(i % 5 == 0 ? "\u{E9}\(i)@x" : "p\(i)@x")
            row["name"] = .string("N\(i)")
            row["n"] = .int(Int64(i))
        })
        return fixture
    }

    /// Rows touching both ends of the table, decomposed spellings of stored emails, new
    /// emails (one of them twice), an email stored as nil elsewhere, and nil emails.
    static var upsert: BatchInsertRequest {
        var objects: [[String: AttributeValue]] = []
        for i in stride(from: 1, to: stored, by: 13) where i % 7 != 0 {
            let email = i % 5 == 0 ? "e\u{301}\(i)@x" : "p\(i)@x"
            objects.append(["email": .string(email), "n": .int(Int64(-i))])
        }
        objects += [
            ["email": "new@x", "name": "New"], ["email": "new@x", "n": 7], ["email": "p8@x", "n": 70],
            ["email": "\u{E9}10000@x", "n": 1], ["email": .null, "name": "Nil"], ["email": .null, "name": "Nil"],
        ]
        var request = BatchInsertRequest(entityName: "Person", objects: objects)
        request.mode = .upsert
        request.resultType = .count
        return request
    }

    static func emailIndexIsBuilt(_ store: PersistentStore) -> Bool {
        let table = store.currentVersion.tables[0]
        return table.indexes[table.layout.uniquenessConstraints[0].index].isBuilt
    }

    @Test func withAndWithoutABuiltIndexTheUpsertMatchesTheSameRows() throws {
        let built = try Self.seeded(), pending = try Self.seeded()
        defer { built.remove(); pending.remove() }
        // A lookup through the email index builds it in one store; the other is reopened,
        // which leaves its index to be built on first use.
        let context = built.context()
        let found = try context.performAndWait {
            try context.fetchObjectIDs(FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", "p1@x")))
        }
        #expect(found.count == 1)
        try pending.reopen()
        #expect(Self.emailIndexIsBuilt(built.store))
        #expect(!Self.emailIndexIsBuilt(pending.store))

        let before = UniquenessFixtures.rows(built.store)
        let results = try [built, pending].map { try $0.store.execute(Self.upsert).count }
        #expect(!Self.emailIndexIsBuilt(pending.store), "matching by a pass over the rows leaves the index unbuilt")
        #expect(results[0] == results[1])
        let afterBuilt = UniquenessFixtures.rows(built.store), afterPending = UniquenessFixtures.rows(pending.store)
        #expect(afterBuilt == afterPending, "the two ways match the same rows")

        // What `==` on emails says the upsert does: decomposed spellings update the
        // precomposed rows, "new@x" is inserted once, each nil email is a new row.
        let updated = stride(from: 1, to: Self.stored, by: 13).filter { $0 % 7 != 0 }
        #expect(afterBuilt.count == Self.stored + 4, "new@x, é10000@x and two nil emails")
        for i in updated {
            #expect(afterBuilt[Int64(i + 1)]?.n == Int64(-i), "person \(i) is updated in place")
            #expect(afterBuilt[Int64(i + 1)]?.name == before[Int64(i + 1)]?.name, "only the given keys change")
        }
        #expect(afterBuilt[9] == Row(email: "p8@x", name: "N8", n: 70))
        #expect(afterBuilt.values.filter { $0.email == "new@x" } == [Row(email: "new@x", name: "New", n: 7)])
        #expect(afterBuilt.values.filter { $0.name == "Nil" }.count == 2)

        // Lookups after the upsert (which build the pending index) agree with the rows.
        for fixture in [built, pending] {
            let context = fixture.context()
            for email in ["e\u{301}10@x", "\u{E9}10@x", "new@x", "p8@x", "\u{E9}10000@x"] {
                let keys = try context.performAndWait {
                    try context.fetchObjectIDs(FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", email)))
                        .map(\.primaryKey)
                }
                #expect(keys == afterBuilt.filter { $0.value.email == email }.map(\.key).sorted(), "\(email)")
            }
            try fixture.reopen()
            #expect(UniquenessFixtures.rows(fixture.store) == afterBuilt, "the log replays to the same rows")
        }
    }

    /// The Kelvin sign is canonically "K": an ASCII email matches a stored one spelled with
    /// it, and the other way round, whether or not the request's emails are all ASCII (the
    /// pass over the rows rules rows out by their bytes only for ASCII rows and values).
    @Test(arguments: [false, true]) func anASCIIEmailMatchesItsCanonicalEquivalent(buildIndex: Bool) throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        try UniquenessFixtures.save(fixture, [("\u{212A}1@x", "Kelvin", 1), ("K2@x", "Kay", 2), ("p@x", "P", 3)])
        try fixture.reopen()
        if buildIndex {
            let context = fixture.context()
            _ = try context.performAndWait {
                try context.fetchObjectIDs(FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", "p@x")))
            }
        }
        for objects in [[["email": "K1@x", "n": 10]], [["email": "\u{212A}2@x", "n": 20]]] as [[[String: AttributeValue]]] {
            var request = BatchInsertRequest(entityName: "Person", objects: objects)
            request.mode = .upsert
            _ = try fixture.store.execute(request)
        }
        let rows = UniquenessFixtures.rows(fixture.store)
        #expect(rows.count == 3, "both rows matched a stored one: \(rows)")
        #expect(rows.values.contains { $0.name == "Kelvin" && $0.n == 10 })
        #expect(rows.values.contains { $0.name == "Kay" && $0.n == 20 })
    }

    static let twoConstraints = try! Schema {
        Entity("Account", uniquenessConstraints: [["email"], ["handle"]]) {
            Attribute("email", .string)
            Attribute("handle", .string)
        }
    }

    @Test func anUpsertStillRefusesToBreakTheEntitysOtherConstraints() throws {
        for buildIndexes in [false, true] {
            let fixture = try StoreFixture(Self.twoConstraints)
            defer { fixture.remove() }
            _ = try fixture.store.execute(BatchInsertRequest(entityName: "Account", objects: [
                ["email": "a@x", "handle": "ann"], ["email": "b@x", "handle": "bea"],
            ]))
            if buildIndexes {
                let context = fixture.context()
                for key in ["email", "handle"] {
                    _ = try context.performAndWait {
                        try context.fetchObjectIDs(FetchRequest(entityName: "Account", predicate: try ObjectPredicate(format: "\(key) == %@", "x")))
                    }
                }
            }
            let lsn = fixture.store.lastLSN
            for objects in [[["email": "a@x", "handle": "bea"]], [["email": "c@x", "handle": "ann"]]] as [[[String: AttributeValue]]] {
                var request = BatchInsertRequest(entityName: "Account", objects: objects)
                request.mode = .upsert
                do {
                    _ = try fixture.store.execute(request)
                    Issue.record("an upsert giving two accounts one handle was accepted (indexes built: \(buildIndexes))")
                } catch let error as StrataError {
                    #expect(error.code == .constraintConflict, "\(error)")
                    #expect(error.message.contains("[handle]"), "\(error.message)")
                }
            }
            #expect(fixture.store.lastLSN == lsn, "nothing was appended")
            var fine = BatchInsertRequest(entityName: "Account", objects: [["email": "a@x", "handle": "ann2"], ["email": "c@x", "handle": "cy"]])
            fine.mode = .upsert
            fine.resultType = .count
            #expect(try fixture.store.execute(fine).count == 2)
        }
    }
}
