import Foundation
import Testing
@testable import Strata

@Suite("Schema consistency")
struct SchemaConsistencyTests {
    /// The single problem message of an invalid schema.
    func problem(_ entities: [Entity], sourceLocation: SourceLocation = #_sourceLocation) -> StrataError? {
        do {
            try Schema(entities: entities).validate()
            Issue.record("the schema was accepted", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.code == .invalidSchema, sourceLocation: sourceLocation)
            return error
        }
    }

    static let list = Relationship(name: "items", destination: "Item", inverse: "list", isToMany: true)
    static let item = Relationship(name: "list", destination: "List", inverse: "items")

    @Test func validSchemasPass() throws {
        try ModelFixtures.todoPlain.validate()
        try Schema(entities: []).validate()
        // A relationship may be its own inverse.
        try Schema(entities: [Entity(name: "P", relationships: [
            Relationship(name: "spouse", destination: "P", inverse: "spouse"),
        ])]).validate()
    }

    /// What `PersistentStore.open` cannot store, the schema refuses when it is built.
    @Test func manyToManyIsRefusedOnceWithWhatToDo() throws {
        let pair = problem([
            Entity(name: "Student", relationships: [Relationship(name: "courses", destination: "Course", inverse: "students", isToMany: true)]),
            Entity(name: "Course", relationships: [Relationship(name: "students", destination: "Student", inverse: "courses", isToMany: true)]),
        ])
        #expect(pair?.message == "invalid schema: relationship 'Course.students' and its inverse Student.courses are both to-many: a many-to-many relationship, which this version of Strata cannot store; model it with an intermediate entity that has a to-one relationship to each side")
        #expect(pair?.entity == "Course" && pair?.key == "students")
        let own = problem([Entity(name: "P", relationships: [
            Relationship(name: "friends", destination: "P", inverse: "friends", isToMany: true),
        ])])
        #expect(own?.message.contains("relationship 'P.friends' and its inverse P.friends are both to-many") == true)
        #expect(throws: StrataError.self) {
            _ = try Schema {
                Entity("Student") { Relationship("courses", to: "Course", inverse: "students", toMany: true) }
                Entity("Course") { Relationship("students", to: "Student", inverse: "courses", toMany: true) }
            }
        }
    }

    @Test func duplicateEntityNames() {
        let error = problem([Entity(name: "A"), Entity(name: "A")])
        #expect(error?.message == "invalid schema: entity 'A' is defined more than once; rename or merge the duplicates")
        #expect(error?.entity == "A")
    }

    @Test func duplicatePropertyNamesAcrossAttributesAndRelationships() {
        let error = problem([
            Entity(name: "List", attributes: [Attribute(name: "items", type: .string)],
                   relationships: [Self.list]),
            Entity(name: "Item", relationships: [Self.item]),
        ])
        #expect(error?.message.contains("entity 'List' has more than one property named 'items'") == true)
        #expect(error?.key == "items")
    }

    @Test func namesMustBeIdentifiers() {
        let error = problem([Entity(name: "My Entity"), Entity(name: "B", attributes: [Attribute(name: "1st", type: .bool)]),
                             Entity(name: "")])
        let message = error?.message ?? ""
        #expect(message.hasPrefix("invalid schema, 3 problems:"))
        #expect(message.contains("entity name 'My Entity' is not an identifier"))
        #expect(message.contains("property name 'B.1st' is not an identifier"))
        #expect(message.contains("entity name '' is not an identifier"))
    }

    @Test func missingDestination() {
        let error = problem([Entity(name: "List", relationships: [Self.list])])
        #expect(error?.message == "invalid schema: relationship 'List.items' points to entity 'Item', which does not exist; add that entity or fix the destination")
        #expect(error?.key == "items")
    }

    @Test func missingInverse() {
        let error = problem([Entity(name: "List", relationships: [Self.list]), Entity(name: "Item")])
        #expect(error?.message.contains("names the inverse 'list', but Item has no such relationship") == true)
    }

    @Test func inverseThatDoesNotPointBack() {
        let error = problem([
            Entity(name: "List", relationships: [Self.list,
                Relationship(name: "archived", destination: "Item", inverse: "list", isToMany: true)]),
            Entity(name: "Item", relationships: [Self.item]),
        ])
        #expect(error?.message.contains("relationship 'List.archived' has the inverse Item.list, but that one points to List.items; make it point to List.archived") == true)
    }

    @Test func defaultOfTheWrongType() {
        let error = problem([Entity(name: "A", attributes: [Attribute(name: "n", type: .int16, defaultValue: "x")])])
        #expect(error?.message.contains("attribute 'A.n' (int16) has a default of kind string, which does not fit int16") == true)
        let wide = problem([Entity(name: "A", attributes: [Attribute(name: "n", type: .int16, defaultValue: 70_000)])])
        #expect(wide?.message.contains("which does not fit int16") == true)
        let nan = problem([Entity(name: "A", attributes: [Attribute(name: "d", type: .double, defaultValue: .double(.nan))])])
        #expect(nan?.message.contains("not a finite number") == true)
    }

    @Test func defaultThatBreaksARule() {
        let error = problem([Entity(name: "A", attributes: [
            Attribute(name: "n", type: .int32, defaultValue: 11, validationRules: [.range(min: .int(0), max: .int(10))]),
        ])])
        #expect(error?.message.contains("has a default that breaks its range 0...10 rule") == true)
        let custom = problem([Entity(name: "A", attributes: [
            Attribute(name: "n", type: .int32, defaultValue: 1).validate("never") { _ in false },
        ])])
        #expect(custom?.message.contains("breaks its custom 'never' rule") == true)
    }

    @Test func rulesThatDoNotFitTheType() {
        let cases: [(Attribute, String)] = [
            (Attribute(name: "s", type: .string, validationRules: [.range(min: .int(0), max: nil)]), "ranges apply to numbers and dates only"),
            (Attribute(name: "i", type: .int64, validationRules: [.length(min: 0, max: 1)]), "lengths apply to strings and binary data only"),
            (Attribute(name: "i", type: .int64, validationRules: [.pattern("x")]), "patterns apply to strings only"),
            (Attribute(name: "i", type: .int64, validationRules: [.range(min: .double(0.5), max: nil)]), "bounds of a int64 attribute must be of kind integer"),
            (Attribute(name: "d", type: .double, validationRules: [.range(min: .int(0), max: nil)]), "must be of kind double"),
            (Attribute(name: "i", type: .int64, validationRules: [.range(min: .int(5), max: .int(1))]), "minimum is above its maximum"),
            (Attribute(name: "s", type: .string, validationRules: [.length(min: 3, max: 1)]), "minimum is above its maximum"),
            (Attribute(name: "s", type: .string, validationRules: [.length(min: -1, max: nil)]), "negative minimum"),
            (Attribute(name: "s", type: .string, validationRules: [.pattern("a)(b")]), "is not a valid regular expression"),
            (Attribute(name: "d", type: .double, validationRules: [.range(min: nil, max: .double(.infinity))]), "not a finite number"),
            (Attribute(name: "s", type: .string, validationRules: [.custom(CustomValidation("") { _ in true })]), "custom rule without a name"),
        ]
        for (attribute, expected) in cases {
            let error = problem([Entity(name: "A", attributes: [attribute])])
            #expect(error?.message.contains(expected) == true, "\(attribute.validationRules): \(error?.message ?? "")")
            #expect(error?.key == attribute.name)
        }
    }
}
