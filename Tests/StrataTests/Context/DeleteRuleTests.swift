import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Each delete rule, applied at save: nullify, cascade (several levels), deny, no action.
@Suite struct DeleteRuleTests {
    /// Saves one parent named "P" with children "c1", "c2"; returns the IDs (parent first).
    static func seedFamily(_ fixture: StoreFixture) throws -> [ObjectID] {
        let context = fixture.context("seed")
        return try context.performAndWait {
            let parent = try context.insert("Parent")
            try parent.setValue("P", forKey: "name")
            var ids = [parent.objectID]
            for name in ["c1", "c2"] {
                let child = try context.insert("Child")
                try child.setValue(.string(name), forKey: "name")
                try parent.add(child, toKey: "children")
                ids.append(child.objectID)
            }
            try context.save()
            return ids
        }
    }

    @Test func nullifyClearsTheInverseOfTheRelatedObjects() throws {
        let fixture = try StoreFixture(GraphSchemas.parentChild(rule: .nullify))
        defer { fixture.remove() }
        let ids = try Self.seedFamily(fixture)
        let context = fixture.context()
        try context.performAndWait { () throws in
            context.delete(context.object(with: ids[0]))
            try context.save()
        }
        let dump = GraphDump(fixture.store)
        #expect(dump.entities["Parent"]?.isEmpty == true)
        #expect(dump.entities["Child"]?.count == 2)
        #expect(dump.entities["Child"]?.values.allSatisfy { $0["parent"] == .null } == true)
    }

    @Test func nullifyOfAOneToOneClearsThePartner() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        let passportID = try context.performAndWait {
            let author = try context.insert("Author")
            try author.setValue("Ada", forKey: "name")
            let passport = try context.insert("Passport")
            try passport.setValue("P1", forKey: "number")
            try author.setObject(passport, forKey: "passport")
            try context.save()
            context.delete(author)
            try context.save()
            #expect(try passport.object(forKey: "holder") == nil)
            return passport.objectID
        }
        #expect(GraphDump(fixture.store).entities["Passport"]?[passportID.primaryKey]?["holder"] == .null)
    }

    @Test func cascadeDeletesSeveralLevels() throws {
        let fixture = try StoreFixture(GraphSchemas.library)
        defer { fixture.remove() }
        let context = fixture.context()
        let (adaID, passportID) = try context.performAndWait {
            let ada = try context.insert("Author"), grace = try context.insert("Author")
            try ada.setValue("Ada", forKey: "name")
            try grace.setValue("Grace", forKey: "name")
            let passport = try context.insert("Passport")
            try passport.setValue("P", forKey: "number")
            try ada.setObject(passport, forKey: "passport")
            for (author, count) in [(ada, 2), (grace, 1)] {
                for b in 0..<count {
                    let book = try context.insert("Book")
                    try book.setValue(.string("book \(b)"), forKey: "title")
                    try author.add(book, toKey: "books")
                    for n in 1...3 {
                        let chapter = try context.insert("Chapter")
                        try chapter.setValue(.int(Int64(n)), forKey: "number")
                        try book.add(chapter, toKey: "chapters")
                    }
                }
            }
            try context.save()
            return (ada.objectID, passport.objectID)
        }
        #expect(fixture.store.rowCounts == ["Author": 2, "Book": 3, "Chapter": 9, "Passport": 1])
        // A fresh context, with nothing loaded: the cascade reads what it needs.
        let deleter = fixture.context()
        try deleter.performAndWait { () throws in
            deleter.delete(deleter.object(with: adaID))
            try deleter.save()
        }
        #expect(fixture.store.rowCounts == ["Author": 1, "Book": 1, "Chapter": 3, "Passport": 1])
        let dump = GraphDump(fixture.store)
        let survivingBook = try #require(dump.entities["Book"]?.keys.first)
        #expect(dump.entities["Chapter"]?.values.allSatisfy { $0["book"] == .int(survivingBook) } == true)
        #expect(dump.entities["Passport"]?[passportID.primaryKey]?["holder"] == .null)
        try fixture.reopen()
        #expect(GraphDump(fixture.store) == dump)
    }

    @Test func denyRefusesAndWritesNothing() throws {
        let fixture = try StoreFixture(GraphSchemas.parentChild(rule: .deny))
        defer { fixture.remove() }
        let ids = try Self.seedFamily(fixture)
        let before = GraphDump(fixture.store)
        let lsn = fixture.store.lastLSN
        let context = fixture.context()
        try context.performAndWait { () throws in
            let other = try context.insert("Parent")
            try other.setValue("unrelated insert in the same save", forKey: "name")
            context.delete(context.object(with: ids[0]))
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .deleteDenied)
            #expect(error?.message.contains("children") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("deny") == true)
        }
        #expect(fixture.store.lastLSN == lsn)
        #expect(GraphDump(fixture.store) == before)
        try fixture.reopen()
        #expect(GraphDump(fixture.store) == before, "nothing of the denied save reached the log")

        // Once the children are gone, the delete goes through.
        let retry = fixture.context()
        try retry.performAndWait { () throws in
            let parent = retry.object(with: ids[0])
            for child in try parent.objects(forKey: "children") { retry.delete(child) }
            retry.delete(parent)
            try retry.save()
        }
        #expect(fixture.store.rowCounts == ["Parent": 0, "Child": 0])
    }

    @Test func noActionLeavesTheInverseDangling() throws {
        let fixture = try StoreFixture(GraphSchemas.parentChild(rule: .noAction))
        defer { fixture.remove() }
        let ids = try Self.seedFamily(fixture)
        let context = fixture.context()
        try context.performAndWait { () throws in
            context.delete(context.object(with: ids[0]))
            try context.save()
        }
        let dump = GraphDump(fixture.store)
        #expect(dump.entities["Parent"]?.isEmpty == true)
        #expect(dump.entities["Child"]?.values.allSatisfy { $0["parent"] == .int(ids[0].primaryKey) } == true,
                "no action: the children still hold the deleted parent's key")
    }
}
