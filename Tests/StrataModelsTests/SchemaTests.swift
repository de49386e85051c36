import Foundation
import StrataModels
import Testing

@Suite struct TypedSchemaTests {
    @Test func todoModelsMakeTheBuildersSchema() throws {
        let expected = try Schema {
            Entity("TodoList") {
                Attribute("title", .string)
                Relationship("items", to: "TodoItem", inverse: "list", toMany: true, deleteRule: .cascade)
            }
            Entity("TodoItem") {
                Attribute("name", .string)
                Attribute("createdAt", .date)
                Attribute("done", .bool, default: false)
                Attribute("notes", .string, optional: true)
                Attribute("priority", .string, default: "normal")
                Relationship("list", to: "TodoList", inverse: "items")
            }
        }
        #expect(try Schema(TodoList.self, TodoItem.self) == expected)
    }

    @Test func everyKindMapsToItsAttributeType() throws {
        let entity = try #require(try Schema(Kinds.self).entity(named: "Kinds"))
        let types = Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, ($0.type, $0.isOptional)) })
        let expected: [String: (AttributeType, Bool)] = [
            "flag": (.bool, false), "int": (.int64, false), "int16": (.int16, false), "int32": (.int32, false),
            "int64": (.int64, false), "double": (.double, false), "float": (.double, false), "string": (.string, false),
            "date": (.date, false), "uuid": (.uuid, false), "data": (.binary, false), "url": (.string, false),
            "decimal": (.string, false), "priority": (.string, false), "level": (.int64, false), "address": (.binary, false),
            "optionalFlag": (.bool, true), "optionalInt": (.int64, true), "optionalString": (.string, true),
            "optionalDate": (.date, true), "optionalDecimal": (.string, true), "optionalPriority": (.string, true),
            "optionalLevel": (.int64, true), "optionalAddress": (.binary, true), "code": (.string, false), "score": (.int16, false), "inferred": (.int64, false),
        ]
        #expect(types.count == expected.count)
        for (name, (type, optional)) in expected {
            #expect(types[name]?.0 == type, "\(name)")
            #expect(types[name]?.1 == optional, "\(name)")
        }
        // Literal and enum-case defaults are recorded; computed ones (UUID(), Date(...)) are not.
        #expect(entity.attribute(named: "flag")?.defaultValue == .bool(false))
        #expect(entity.attribute(named: "level")?.defaultValue == .int(1))
        #expect(entity.attribute(named: "uuid")?.defaultValue == .null)
        #expect(entity.attribute(named: "code")?.validationRules == [.length(min: 1, max: 20)])
        #expect(entity.attribute(named: "score")?.validationRules == [.range(min: .int(0), max: .int(10))])
    }

    @Test func aMissingInverseIsASchemaErrorNamingTheProperty() {
        #expect {
            try Schema(Lonely.self, Target.self)
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .invalidSchema && error?.key == "target" && error?.message.contains("@Relationship(inverse:") == true
        }
    }
}

@Model final class Lonely {
    var target: Target?
    init() {}
}

@Model final class Target {
    var name: String = ""
    init() {}
}
