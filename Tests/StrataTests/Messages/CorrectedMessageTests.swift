import Testing
import Foundation
@testable import Strata

/// The messages issue 16 found wrong, verbatim as they read now: no stray period after a
/// question, no "a integer constant is integer", singular "needs", one caret block.
@Suite struct CorrectedMessageTests {
    static let schema = try! Schema {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("age", .int64)
            Attribute("born", .date, optional: true)
            Attribute("active", .bool, default: true)
        }
    }

    static func bindingError(_ format: String) throws -> StrataError {
        try #require(#expect(throws: StrataError.self) {
            _ = try ObjectPredicate(format: format).bound(to: "Person", in: schema)
        })
    }

    @Test func unknownKeyEndsWithTheQuestion() throws {
        #expect(try Self.bindingError("agee > 3").message == "Person has no attribute or relationship 'agee'; did you mean 'age'?")
        #expect(try Self.bindingError("zzzzzz > 3").message == "Person has no attribute or relationship 'zzzzzz'; its keys are name, age, born, active.")
    }

    @Test func typeMismatchesNameTheTypeOnce() throws {
        #expect(try Self.bindingError("age == 'old'").message == "In 'age == <string>' on Person: age (int64) cannot be compared with a string constant.")
        #expect(try Self.bindingError("name == 5").message == "In 'name == <integer>' on Person: name (string) cannot be compared with an integer constant.")
        #expect(try Self.bindingError("age == born").message == "In 'age == born' on Person: age (int64) cannot be compared with born (date).")
        #expect(try Self.bindingError("active > 1").message == "In 'active > <integer>' on Person: active (bool) has no order.")
        #expect(try Self.bindingError("age BEGINSWITH 'a'").message == "In 'age BEGINSWITH <string>' on Person: BEGINSWITH compares strings, and age (int64) is not one.")
        #expect(try Self.bindingError("age ==[c] 3").message == "In 'age ==[c] <integer>' on Person: [c] and [d] apply only to strings, and age (int64) is not one.")
    }

    @Test func oneMigratingDifferenceIsSingular() throws {
        var new = Self.schema
        new.entities[0].attributes.append(Attribute(name: "nickname", type: .string))
        let error = try #require(#expect(throws: StrataError.self) { try new.checkCompatible(withStored: Self.schema) })
        #expect(error.message == """
            the store's schema differs from the application's in 1 way that needs a migration (not supported yet); \
            open the store with its own schema (`strata schema STORE --json` prints it) or create a new store:
            - attribute 'Person.nickname' was added
            """)
    }

    @Test func aSyntaxErrorPrintsItsCaretOnce() throws {
        let error = try #require(#expect(throws: StrataError.self) { _ = try ObjectPredicate(format: "age >= AND") })
        #expect(String(describing: error) == """
            predicateSyntax: Predicate syntax error at column 8: expected a value or key after '>=', found 'AND'.
            age >= AND
                   ^
            """)
    }
}
