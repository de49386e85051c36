import Foundation
import Testing
@testable import Strata

@Suite("Schema builder")
struct SchemaBuilderTests {
    @Test func builderResultEqualsThePlainValueSchema() throws {
        let schema = try Schema {
            Entity("TodoList") {
                Attribute("title", .string).length(1...200)
                Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
            }
            Entity("TodoItem") {
                Attribute("name", .string)
                Attribute("createdAt", .date)
                Attribute("done", .bool, default: false)
                Attribute("priority", .int16, optional: true).range(0...10)
                Relationship("list", to: "TodoList", inverse: "items")
            }
        }
        #expect(schema == ModelFixtures.todoPlain)
    }

    @Test func controlFlowAndEveryModifier() throws {
        let withTags = true
        let epoch = Date(timeIntervalSince1970: 0)
        let schema = try Schema {
            Entity("Note") {
                for index in 1...2 {
                    Attribute("field\(index)", .int32, optional: true).range(1...)
                }
                Attribute("ratio", .double, optional: true).range(0...1).range(...0.75)
                Attribute("at", .date, optional: true).range(epoch...epoch.addingTimeInterval(60))
                Attribute("code", .string, optional: true).length(...3).length(1...).pattern("[A-Z]+")
                Attribute("n", .int64, optional: true).validate("even") { $0 == .int(0) }
                if withTags {
                    Relationship("tags", to: "Tag", inverse: "note", toMany: true)
                }
            }
            if withTags {
                // To-one: a many-to-many pair is refused (to-many is stored as the inverse keys).
                Entity("Tag") { Relationship("note", to: "Note", inverse: "tags") }
            } else {
                Entity("Unused")
            }
        }
        let note = try #require(schema.entity(named: "Note"))
        #expect(note.attributes.map(\.name) == ["field1", "field2", "ratio", "at", "code", "n"])
        #expect(note.attribute(named: "field2")?.validationRules == [.range(min: .int(1), max: nil)])
        // Integer bounds on a double attribute become doubles.
        #expect(note.attribute(named: "ratio")?.validationRules == [
            .range(min: .double(0), max: .double(1)), .range(min: nil, max: .double(0.75)),
        ])
        #expect(note.attribute(named: "at")?.validationRules == [
            .range(min: .date(epoch), max: .date(epoch.addingTimeInterval(60))),
        ])
        #expect(note.attribute(named: "code")?.validationRules == [
            .length(min: nil, max: 3), .length(min: 1, max: nil), .pattern("[A-Z]+"),
        ])
        #expect(note.attribute(named: "n")?.validationRules.first?.kind == "custom")
        #expect(schema.entities.map(\.name) == ["Note", "Tag"])
    }

    @Test func throwingInitValidates() {
        expectModelError(.invalidSchema) {
            try Schema {
                Entity("A") { Relationship("b", to: "B", inverse: "a") }
            }
        }
    }

    @Test func customRulesCompareByName() {
        let a = Attribute("n", .int64).validate("even") { _ in true }
        let b = Attribute("n", .int64).validate("even") { _ in false }
        let c = Attribute("n", .int64).validate("odd") { _ in true }
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
    }
}
