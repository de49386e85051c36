import Foundation
import Testing
@testable import Strata

@Suite("Type checking")
struct TypeCheckingTests {
    let entity = ModelFixtures.todoPlain.entities[1]

    @Test func wrongKindIsATypeMismatchNamingEntityKeyTypeAndKind() throws {
        let error = try #require(#expect(throws: StrataError.self) {
            try entity.checkType(of: "very secret", forKey: "priority")
        })
        #expect(error.code == .typeMismatch)
        #expect(error.entity == "TodoItem")
        #expect(error.key == "priority")
        #expect(error.message == "TodoItem.priority expects int16, but the value is a string")
        #expect(!error.message.contains("secret"))
    }

    @Test func integerOutsideTheWidthIsATypeMismatch() throws {
        let error = try #require(#expect(throws: StrataError.self) {
            try entity.checkType(of: .int(40_000), forKey: "priority")
        })
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("outside int16's range -32768...32767"))
        #expect(!error.message.contains("40000"))
    }

    @Test func nullAndFittingValuesPass() throws {
        try entity.checkTypes(of: ["priority": .null, "name": "x", "done": true, "createdAt": .date(Date())])
        try entity.checkType(of: .int(32_767), forKey: "priority")
    }

    @Test func unknownKeySuggestsTheNearestName() throws {
        let error = try #require(#expect(throws: StrataError.self) {
            try entity.checkTypes(of: ["name": "x", "priorty": 1])
        })
        #expect(error.code == .unknownKey)
        #expect(error.message == "TodoItem has no attribute 'priorty'; did you mean 'priority'?")
    }

    @Test func relationshipKeyIsNotAnAttribute() {
        expectModelError(.typeMismatch) { try entity.checkType(of: 1, forKey: "list") }
    }

    @Test func lookupsThrowWithSuggestions() throws {
        let error = try #require(#expect(throws: StrataError.self) {
            try ModelFixtures.todoPlain.existingEntity(named: "TodoItme")
        })
        #expect(error.code == .unknownEntity)
        #expect(error.message.hasSuffix("did you mean 'TodoItem'?"))
        #expect(try ModelFixtures.todoPlain.existingEntity(named: "TodoList").name == "TodoList")
        expectModelError(.unknownKey) { try entity.existingRelationship(named: "name") }
        #expect(Schema.nearestName(to: "zzzzzz", among: ["name"]) == nil)
    }

    @Test func closestNameAlwaysOffersOneAndPrefersCompletions() {
        #expect(Schema.closestName(to: "zzzzzz", among: ["name"]) == "name")
        #expect(Schema.closestName(to: "nick", among: ["name", "nickname", "age"]) == "nickname")
        #expect(Schema.closestName(to: "AGE", among: ["name", "ages", "age"]) == "age")
        #expect(Schema.closestName(to: "nmae", among: ["age", "name"]) == "name")
        #expect(Schema.closestName(to: "x", among: []) == nil)
    }
}
