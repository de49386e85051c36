import Foundation
import Testing
@testable import Strata

@Suite("Schema differences")
struct SchemaDifferencesTests {
    @Test func identicalSchemasHaveNoDifferences() {
        #expect(ModelFixtures.todoPlain.differences(from: ModelFixtures.todoPlain).isEmpty)
    }

    @Test func everyKindOfChangeIsListedInOrder() throws {
        let old = ModelFixtures.todoPlain
        var new = old
        // TodoList: title type and optionality; items delete rule and cardinality.
        new.entities[0].attributes[0].type = .binary
        new.entities[0].attributes[0].isOptional = true
        new.entities[0].attributes[0].validationRules = []
        new.entities[0].relationships[0].deleteRule = .deny
        // TodoItem: remove name, add note, change default, relationship optionality, inverse.
        new.entities[1].attributes.removeFirst()
        new.entities[1].attributes.append(Attribute(name: "note", type: .string, isOptional: true))
        new.entities[1].attributes[1].defaultValue = true
        new.entities[1].relationships[0].isOptional = false
        new.entities[1].relationships[0].inverse = "entries"
        new.entities[1].relationships[0].destination = "Board"
        new.entities[1].relationships.append(Relationship(name: "tags", destination: "Tag", inverse: "items"))
        new.entities.append(Entity(name: "Tag"))
        new.entities.remove(at: 0)

        let descriptions = new.differences(from: old).map(\.description)
        #expect(descriptions == [
            "attribute 'TodoItem.done' changed its default value",
            "attribute 'TodoItem.note' was added",
            "attribute 'TodoItem.name' was removed",
            "relationship 'TodoItem.list' now points to Board instead of TodoList",
            "relationship 'TodoItem.list' changed its inverse from 'items' to 'entries'",
            "relationship 'TodoItem.list' became required",
            "relationship 'TodoItem.tags' was added",
            "entity 'Tag' was added",
            "entity 'TodoList' was removed",
        ])

        var changedList = old
        changedList.entities[0].attributes[0].type = .binary
        changedList.entities[0].attributes[0].isOptional = true
        changedList.entities[0].attributes[0].validationRules = []
        changedList.entities[0].relationships[0].deleteRule = .deny
        changedList.entities[0].relationships[0].isToMany = false
        let listChanges = changedList.differences(from: old)
        #expect(listChanges == [
            .attributeTypeChanged(entity: "TodoList", attribute: "title", from: .string, to: .binary),
            .attributeOptionalityChanged(entity: "TodoList", attribute: "title", isOptional: true),
            .attributeValidationChanged(entity: "TodoList", attribute: "title"),
            .relationshipCardinalityChanged(entity: "TodoList", relationship: "items", isToMany: false),
            .relationshipDeleteRuleChanged(entity: "TodoList", relationship: "items", from: .cascade, to: .deny),
        ])
        #expect(listChanges.map(\.requiresMigration) == [true, true, false, true, false])
        #expect(listChanges[4].description == "relationship 'TodoList.items' changed its delete rule from cascade to deny")
    }

    @Test func customRulesAndOrderAreIgnored() {
        var new = ModelFixtures.todoPlain
        new.entities[1].attributes[0] = new.entities[1].attributes[0].validate("x") { _ in true }
        new.entities.reverse()
        new.entities[0].attributes.reverse()
        #expect(new.differences(from: ModelFixtures.todoPlain).isEmpty)
    }

    @Test func compatibilityCheckListsOnlyMigratingChanges() throws {
        var new = ModelFixtures.todoPlain
        new.entities[1].attributes[2].defaultValue = true
        try new.checkCompatible(withStored: ModelFixtures.todoPlain)
        new.entities[1].attributes[1].type = .double
        new.entities[1].attributes.append(Attribute(name: "note", type: .string))
        let error = try #require(#expect(throws: StrataError.self) {
            try new.checkCompatible(withStored: ModelFixtures.todoPlain)
        })
        #expect(error.code == .schemaMismatch)
        #expect(error.entity == "TodoItem")
        #expect(error.message.contains("in 2 ways that need a migration"))
        #expect(error.message.hasSuffix("""
            - attribute 'TodoItem.createdAt' changed type from date to double
            - attribute 'TodoItem.note' was added
            """))
    }
}
