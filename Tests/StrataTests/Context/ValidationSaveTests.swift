import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A save validates every changed object and reports every broken rule in one error.
@Suite struct ValidationSaveTests {
    static let schema = try! Schema {
        Entity("Account") {
            Attribute("name", .string).length(1...10)
            Attribute("age", .int16, optional: true).range(0...150)
            Attribute("email", .string, optional: true).pattern("[a-z]+@[a-z]+\\.[a-z]+")
            Attribute("code", .int64, default: 2).validate("even") { value in
                if case .int(let n) = value { return n % 2 == 0 }
                return false
            }
            Relationship("owner", to: "Owner", inverse: "accounts", optional: false)
        }
        Entity("Owner") {
            Attribute("name", .string)
            Relationship("accounts", to: "Account", inverse: "owner", toMany: true)
        }
    }

    @Test func everyBrokenRuleOfEveryObjectIsReportedAndNothingIsWritten() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let lsn = fixture.store.lastLSN
        let context = fixture.context()
        try context.performAndWait { () throws in
            let owner = try context.insert("Owner")
            try owner.setValue("O", forKey: "name")
            let first = try context.insert("Account")
            try first.setValues(["name": "far too long a name", "age": 200, "code": 3])
            try first.setObject(owner, forKey: "owner")
            let second = try context.insert("Account")
            try second.setValues(["email": "not an email"])   // name nil; no owner
            let good = try context.insert("Account")
            try good.setValues(["name": "ok", "email": "a@b.cd"])
            try good.setObject(owner, forKey: "owner")

            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validation)
            let failure = try #require(error.flatMap { ValidationFailure($0) })
            let one = first.objectID.description, two = second.objectID.description
            let found = Set(failure.violations.map { v -> String in
                switch v.rule {
                case .required: "\(v.object) \(v.key) required"
                case .rule(let rule): "\(v.object) \(v.key) \(rule.kind)"
                }
            })
            #expect(found == [
                "\(one) name length", "\(one) age range", "\(one) code custom",
                "\(two) name required", "\(two) email pattern", "\(two) owner required",
            ])
            #expect(failure.violations.count == 6)
            #expect(failure.violations.allSatisfy { $0.entity == "Account" })
            #expect(failure.violations.first { $0.key == "age" }?.value == .int(200))
            // The message names each object and key, never the values.
            let message = error?.message ?? ""
            #expect(message.contains("6 validation rules are broken"))
            for key in ["'name'", "'age'", "'code'", "'email'", "'owner'"] { #expect(message.contains(key), "\(key)") }
            #expect(message.contains(one) && message.contains(two))
            #expect(!message.contains("far too long"), "no user data in the message")
            #expect(!message.contains(good.objectID.description), "the valid object is not listed")
        }
        #expect(fixture.store.lastLSN == lsn, "nothing was written")
        #expect(fixture.store.rowCounts == ["Account": 0, "Owner": 0])
    }

    @Test func fixingTheValuesLetsTheSameSaveThrough() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let context = fixture.context()
        try context.performAndWait { () throws in
            let owner = try context.insert("Owner")
            try owner.setValue("O", forKey: "name")
            let account = try context.insert("Account")
            try account.setValue("", forKey: "name")
            try account.setObject(owner, forKey: "owner")
            #expect(throws: StrataError.self) { try context.save() }
            try account.setValue("fine", forKey: "name")
            try context.save()
            // An update is validated too.
            try account.setValue(.int(-1), forKey: "age")
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validation)
            #expect(error?.key == "age" && error?.entity == "Account")
        }
        #expect(fixture.store.rowCounts == ["Account": 1, "Owner": 1])
        #expect(GraphDump(fixture.store).entities["Account"]?.values.first?["age"] == .null)
    }

    /// An entity whose only rule is requiredness (no attribute rules, no required
    /// relationship) is checked by a shorter path: it must still find every missing value,
    /// in inserted objects and in updates alike, and let complete objects through, while an
    /// entity with a rule but no required relationship still has its rule checked.
    @Test func aRequiredValueMissingFromAnEntityWithoutRulesIsReported() throws {
        let schema = try Schema {
            Entity("Note") {
                Attribute("title", .string)
                Attribute("body", .string, optional: true)
                Attribute("rank", .int64)
            }
            Entity("Tag") {
                Attribute("label", .string).length(1...5)
            }
        }
        let fixture = try StoreFixture(schema)
        defer { fixture.remove() }
        let context = fixture.context()
        try context.performAndWait { () throws in
            let complete = try context.insert("Note")
            try complete.setValues(["title": "kept", "rank": 1])
            let untitled = try context.insert("Note")
            try untitled.setValues(["rank": 2, "body": "no title"])
            let tag = try context.insert("Tag")
            try tag.setValue("far too long", forKey: "label")
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validation)
            let failure = try #require(error.flatMap { ValidationFailure($0) })
            let found = Set(failure.violations.map { v -> String in
                switch v.rule {
                case .required: "\(v.object) \(v.key) required"
                case .rule(let rule): "\(v.object) \(v.key) \(rule.kind)"
                }
            })
            #expect(found == ["\(untitled.objectID.description) title required", "\(tag.objectID.description) label length"])
            #expect(failure.violations.count == 2)

            try untitled.setValue("now titled", forKey: "title")
            try tag.setValue("short", forKey: "label")
            try context.save()
            // An update that clears a required value.
            try complete.setValue(.null, forKey: "rank")
            let update = #expect(throws: StrataError.self) { try context.save() }
            #expect(update?.code == .validation)
            #expect(update?.key == "rank" && update?.entity == "Note")
        }
        #expect(fixture.store.rowCounts == ["Note": 2, "Tag": 1])
        let ranks = GraphDump(fixture.store).entities["Note"]?.values.map { $0["rank"] } ?? []
        #expect(Set(ranks) == [AttributeValue.int(1), .int(2)], "the cleared rank was not written")
    }
}
