import Foundation
import Testing
@testable import Strata

/// Batch inserts and uniqueness: refused when rows would share a constrained value, or
/// upserted (`.upsert`) in one transaction.
@Suite struct UpsertBatchTests {
    typealias Row = UniquenessFixtures.Row

    @Test func aBatchInsertOfADuplicateAppendsNothing() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        try UniquenessFixtures.save(fixture, [("a@x", "Ann", 0)])
        let before = UniquenessFixtures.rows(fixture.store)
        let lsn = fixture.store.lastLSN
        for rows in [[["email": "b@x"], ["email": "a@x"]], [["email": "c@x"], ["email": "c@x"]]] as [[[String: AttributeValue]]] {
            do {
                _ = try fixture.store.execute(BatchInsertRequest(entityName: "Person", objects: rows))
                Issue.record("the batch insert was accepted")
            } catch let error as StrataError {
                #expect(error.code == .constraintConflict, "\(error)")
                #expect(error.message.contains("[email]"))
            }
        }
        #expect(fixture.store.lastLSN == lsn, "nothing was appended")
        try fixture.reopen()
        #expect(UniquenessFixtures.rows(fixture.store) == before)
    }

    @Test func upsertUpdatesMatchingRowsAndInsertsTheRestInOneRecord() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        let ids = try UniquenessFixtures.save(fixture, [("a@x", "Ann", 1), ("b@x", "Bea", 2)])
        let lsn = fixture.store.lastLSN
        var request = BatchInsertRequest(entityName: "Person", objects: [
            ["email": "a@x", "n": 10],
            ["email": "c@x", "name": "Cy"],
            ["email": "c@x", "n": 5],
            ["email": .null, "name": "nobody"],
        ])
        request.mode = .upsert
        request.resultType = .count
        let result = try fixture.store.execute(request)
        #expect(result.count == 3, "one update and two inserts")
        #expect(fixture.store.lastLSN == lsn + 1, "one transaction")
        for _ in 0..<2 {
            let rows = UniquenessFixtures.rows(fixture.store)
            #expect(rows.count == 4)
            #expect(rows[ids[0].primaryKey] == Row(email: "a@x", name: "Ann", n: 10), "only the given key is updated")
            #expect(rows[ids[1].primaryKey] == Row(email: "b@x", name: "Bea", n: 2))
            #expect(rows.values.filter { $0 == Row(email: "c@x", name: "Cy", n: 5) }.count == 1, "the two c@x rows became one")
            #expect(rows.values.contains(Row(email: nil, name: "nobody", n: 0)))
            try fixture.reopen()
        }
    }

    @Test func aBatchUpdateThatMakesRowsShareAValueIsRefused() throws {
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        try UniquenessFixtures.save(fixture, (0..<50).map { ("p\($0)@x", "P", Int64($0)) })
        let before = UniquenessFixtures.rows(fixture.store)
        var request = BatchUpdateRequest(entityName: "Person")
        request.propertiesToUpdate = ["email": .constant("same@x")]
        do {
            _ = try fixture.store.execute(request)
            Issue.record("the batch update was accepted")
        } catch let error as StrataError {
            #expect(error.code == .constraintConflict)
            #expect(error.message.contains("and 40 more"), "the message lists ten IDs of fifty: \(error.message)")
            #expect((error.cause as? UniquenessConflicts)?.conflicts.first?.objectIDs.count == 50)
        }
        #expect(UniquenessFixtures.rows(fixture.store) == before)
        request.propertiesToUpdate = ["name": .constant("Q")]
        _ = try fixture.store.execute(request)
        #expect(UniquenessFixtures.rows(fixture.store).values.allSatisfy { $0.name == "Q" }, "other attributes update freely")
    }

    @Test func upsertNeedsAConstraint() throws {
        let fixture = try StoreFixture(UniquenessFixtures.unconstrained)
        defer { fixture.remove() }
        var request = BatchInsertRequest(entityName: "Person", objects: [["email": "a@x"]])
        request.mode = .upsert
        #expect(throws: StrataError.self) { try fixture.store.execute(request) }
    }
}
