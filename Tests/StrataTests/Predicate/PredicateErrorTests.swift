import Foundation
import Testing
@testable import Strata

/// A format that must fail: the error code, the 1-based column for format errors, and
/// words the message must contain.
struct PredicateErrorRow: CustomTestStringConvertible, Sendable {
    var format: String
    var arguments: [any PredicateArgumentConvertible]
    var variables: [String: any PredicateArgumentConvertible]?
    var code: StrataError.Code
    var column: Int?
    var mentions: [String]

    init(_ format: String, _ arguments: any PredicateArgumentConvertible...,
         variables: [String: any PredicateArgumentConvertible]? = nil,
         code: StrataError.Code, column: Int? = nil, mentions: [String] = []) {
        self.format = format
        self.arguments = arguments
        self.variables = variables
        self.code = code
        self.column = column
        self.mentions = mentions
    }

    var testDescription: String { format }
}

let predicateErrorTable: [PredicateErrorRow] = [
    // Syntax, with positions
    PredicateErrorRow("", code: .predicateSyntax, column: 1, mentions: ["a predicate", "end of the format"]),
    PredicateErrorRow("age >=", code: .predicateSyntax, column: 7, mentions: ["after '>='"]),
    PredicateErrorRow("age >= AND", code: .predicateSyntax, column: 8, mentions: ["'AND'"]),
    PredicateErrorRow("age 36", code: .predicateSyntax, column: 5, mentions: ["an operator"]),
    PredicateErrorRow("age == 36 age", code: .predicateSyntax, column: 11, mentions: ["AND, OR"]),
    PredicateErrorRow("(age == 36", code: .predicateSyntax, column: 11, mentions: ["')'"]),
    PredicateErrorRow("age == 36)", code: .predicateSyntax, column: 10),
    PredicateErrorRow("name == 'Ada", code: .predicateSyntax, column: 9, mentions: ["closing"]),
    PredicateErrorRow("name == \"Ada'", code: .predicateSyntax, column: 9, mentions: ["closing"]),
    PredicateErrorRow("name == 'a\\qb'", code: .predicateSyntax, column: 11, mentions: ["escape"]),
    PredicateErrorRow("name == '\\u12'", code: .predicateSyntax, column: 10, mentions: ["hex"]),
    PredicateErrorRow("name == '\\uD800'", code: .predicateSyntax, column: 10, mentions: ["surrogate"]),
    PredicateErrorRow("age == 99999999999999999999", code: .predicateSyntax, column: 8, mentions: ["integer"]),
    PredicateErrorRow("age ~ 3", code: .predicateSyntax, column: 5),
    PredicateErrorRow("age == 3 & age == 4", code: .predicateSyntax, column: 10),
    PredicateErrorRow("name BEGINSWITH[x] 'a'", code: .predicateSyntax, column: 17, mentions: ["c, d or cd"]),
    PredicateErrorRow("name BEGINSWITH[c 'a'", code: .predicateSyntax, column: 19, mentions: ["']'"]),
    PredicateErrorRow("age BETWEEN {1}", code: .predicateSyntax, column: 5, mentions: ["two-element"]),
    PredicateErrorRow("age BETWEEN {1, 2, 3}", code: .predicateSyntax, column: 5, mentions: ["two-element"]),
    PredicateErrorRow("age IN {1, 2", code: .predicateSyntax, column: 13, mentions: ["'}'"]),
    PredicateErrorRow("age IN {1, age}", code: .predicateSyntax, column: 12, mentions: ["constant"]),
    PredicateErrorRow("age IN {1, {2}}", code: .predicateSyntax, column: 12),
    PredicateErrorRow("name MATCHES '('", code: .predicateSyntax, column: 6, mentions: ["regular expression"]),
    PredicateErrorRow("FUNCTION(name, 'uppercase') == 'A'", code: .predicateSyntax, column: 1, mentions: ["cannot run code"]),
    PredicateErrorRow("SUBQUERY(pets, $p, $p.age > 3).@count > 0", code: .predicateSyntax, column: 1, mentions: ["cannot run code"]),
    PredicateErrorRow("SELF == 3", code: .predicateSyntax, column: 1),
    PredicateErrorRow("size != 1", code: .predicateSyntax, column: 1, mentions: ["reserved word 'size'", "#size"]),
    PredicateErrorRow("pets.@foo > 1", code: .predicateSyntax, column: 6, mentions: ["@count"]),
    PredicateErrorRow("pets.@sum > 1", code: .predicateSyntax, column: 6, mentions: ["after @sum"]),
    PredicateErrorRow("pets.@count.age > 1", code: .predicateSyntax, column: 13, mentions: ["nothing after @count"]),
    PredicateErrorRow("pets. > 1", code: .predicateSyntax, column: 7, mentions: ["a key after '.'"]),
    PredicateErrorRow("ANY", code: .predicateSyntax, column: 4, mentions: ["to-many key path"]),
    PredicateErrorRow("age == CAST(1, 'NSString')", code: .predicateSyntax, column: 16),
    PredicateErrorRow("id == CAST('nope', 'UUID')", code: .predicateSyntax, column: 12),
    PredicateErrorRow("age == %x", code: .predicateSyntax, column: 9, mentions: ["%@, %K"]),
    PredicateErrorRow("name == $", code: .predicateSyntax, column: 10),
    PredicateErrorRow("age == 1 AND", code: .predicateSyntax, column: 13),
    PredicateErrorRow("NOT", code: .predicateSyntax, column: 4),
    PredicateErrorRow("age ==[c] 3 OR (", code: .predicateSyntax, column: 17),
    // Arguments
    PredicateErrorRow("age > %@", code: .predicateArgument, column: 7, mentions: ["argument #1"]),
    PredicateErrorRow("age > %@ AND age < %@", 1, code: .predicateArgument, column: 20, mentions: ["argument #2"]),
    PredicateErrorRow("age > %@", 1, 2, code: .predicateArgument, column: 9, mentions: ["2 arguments"]),
    PredicateErrorRow("age > 1", 1, code: .predicateArgument, mentions: ["1 arguments"]),
    PredicateErrorRow("age > %d", "x", code: .predicateArgument, column: 7, mentions: ["integer"]),
    PredicateErrorRow("age > %f", "x", code: .predicateArgument, column: 7, mentions: ["number"]),
    PredicateErrorRow("%K == 1", 3, code: .predicateArgument, column: 1, mentions: ["key path"]),
    PredicateErrorRow("%K == 1", "not a key", code: .predicateArgument, column: 1),
    PredicateErrorRow("age == %@", PredicateArgument.keyPath("age"), code: .predicateArgument, column: 8, mentions: ["%K"]),
    PredicateErrorRow("score == %@", Double.nan, code: .predicateArgument, column: 10, mentions: ["NaN"]),
    PredicateErrorRow("age > $min", variables: ["max": 3], code: .predicateArgument, column: 7, mentions: ["$min", "$max"]),
    PredicateErrorRow("age > $min", code: .predicateArgument, mentions: ["$min", "substituting"]),
    // Unknown keys, with the nearest key
    PredicateErrorRow("agee > 3", code: .unknownKey, mentions: ["Person", "'agee'", "'age'"]),
    PredicateErrorRow("nick == 'a'", code: .unknownKey, mentions: ["Person", "'nick'"]),
    PredicateErrorRow("team.titel == 'a'", code: .unknownKey, mentions: ["Team", "'titel'", "'title'"]),
    PredicateErrorRow("ANY pets.nmae == 'a'", code: .unknownKey, mentions: ["Pet", "'nmae'", "'name'"]),
    PredicateErrorRow("pets.@sum.agge > 1", code: .unknownKey, mentions: ["Pet", "'agge'", "'age'"]),
    PredicateErrorRow("name.first == 'a'", code: .unknownKey, mentions: ["attribute"]),
    PredicateErrorRow("xyzzy == 1", code: .unknownKey, mentions: ["Person", "'xyzzy'"]),
    // Type mismatches, before any row is read
    PredicateErrorRow("age == 'x'", code: .typeMismatch, mentions: ["age", "int64", "string"]),
    PredicateErrorRow("name > 3", code: .typeMismatch, mentions: ["name"]),
    PredicateErrorRow("active == %@", PredicateFixtures.day(0), code: .typeMismatch, mentions: ["bool", "date"]),
    PredicateErrorRow("active < YES", code: .typeMismatch, mentions: ["no order"]),
    PredicateErrorRow("id < %@", PredicateFixtures.uuid(1), code: .typeMismatch, mentions: ["no order"]),
    PredicateErrorRow("age BEGINSWITH 'a'", code: .typeMismatch, mentions: ["BEGINSWITH"]),
    PredicateErrorRow("name CONTAINS 3", code: .typeMismatch),
    PredicateErrorRow("age ==[c] 3", code: .typeMismatch, mentions: ["[c]"]),
    PredicateErrorRow("age == nil", code: .typeMismatch, mentions: ["never nil"]),
    PredicateErrorRow("age > nil", code: .typeMismatch, mentions: ["no order"]),
    PredicateErrorRow("name LIKE nil", code: .typeMismatch),
    PredicateErrorRow("age IN {1, 'a'}", code: .typeMismatch, mentions: ["mixes"]),
    PredicateErrorRow("age IN {'a'}", code: .typeMismatch),
    PredicateErrorRow("age IN 3", code: .typeMismatch, mentions: ["IN needs"]),
    PredicateErrorRow("{1, 2} IN age", code: .typeMismatch, mentions: ["list"]),
    PredicateErrorRow("age == {1, 2}", code: .typeMismatch, mentions: ["list"]),
    PredicateErrorRow("name BETWEEN {1, 2}", code: .typeMismatch),
    PredicateErrorRow("pets.name == 'Rex'", code: .typeMismatch, mentions: ["to-many", "ANY"]),
    PredicateErrorRow("pets == nil", code: .typeMismatch, mentions: ["@count"]),
    PredicateErrorRow("ANY team.title == 'Red'", code: .typeMismatch, mentions: ["ANY needs"]),
    PredicateErrorRow("ALL name == 'Red'", code: .typeMismatch, mentions: ["ALL needs"]),
    PredicateErrorRow("team == 'Red'", code: .typeMismatch, mentions: ["NIL"]),
    PredicateErrorRow("team.@count > 1", code: .typeMismatch, mentions: ["to-many"]),
    PredicateErrorRow("pets.@sum.name > 1", code: .typeMismatch, mentions: ["numeric"]),
    PredicateErrorRow("pets.@count == 'x'", code: .typeMismatch),
    PredicateErrorRow("name MATCHES nickname", code: .typeMismatch, mentions: ["constant pattern"]),
    PredicateErrorRow("ANY pets.age == pets.age", code: .typeMismatch, mentions: ["only IN"]),
    PredicateErrorRow("photo > %@", Data(), code: .typeMismatch),
    PredicateErrorRow("birthday == 3", code: .typeMismatch, mentions: ["date"]),
]

@Suite struct PredicateErrorTests {
    @Test(arguments: predicateErrorTable)
    func row(_ row: PredicateErrorRow) throws {
        let error = try #require(PredicateFixtures.error(row.format, row.arguments, variables: row.variables),
                                 "\(row.format) should fail")
        #expect(error.code == row.code, "\(error)")
        if let column = row.column {
            let detail = try #require(error.cause as? PredicateSyntaxError, "\(error)")
            #expect(detail.column == column, "\(error)")
            #expect(detail.offset == column - 1)
            #expect(error.message.contains("column \(column)"))
            #expect(error.message.hasSuffix(detail.caretLine))
        }
        for word in row.mentions {
            #expect(error.message.contains(word), "\(error.message) should mention \(word)")
        }
    }

    @Test func caretLineUnderlinesThePosition() throws {
        do {
            _ = try ObjectPredicate(format: "age >= AND")
            Issue.record("should fail")
        } catch {
            let detail = try #require(error.cause as? PredicateSyntaxError)
            #expect(detail.caretLine == "age >= AND\n       ^")
            #expect(detail.expected == "a value or key after '>='")
            #expect(detail.found == "'AND'")
            #expect(error.message == "Predicate syntax error at column 8: expected a value or key after '>=', found 'AND'.\nage >= AND\n       ^")
        }
    }

    @Test func positionsCountCharactersAndFlattenLines() throws {
        do {
            _ = try ObjectPredicate(format: "name == 'Zoe\u{308}'\nAND ~")
            Issue.record("should fail")
        } catch {
            let detail = try #require(error.cause as? PredicateSyntaxError)
            #expect(detail.offset == 18)
            #expect(detail.caretLine == "name == 'Zoe\u{308}' AND ~\n" + String(repeating: " ", count: 18) + "^")
        }
    }

    @Test func errorsNeverShowArgumentValues() {
        let error = PredicateFixtures.error("age == %@", ["secret-value"])
        #expect(error?.code == .typeMismatch)
        #expect(error.map { !$0.message.contains("secret-value") } == true)
    }

    @Test func unknownEntityIsNamed() {
        expectPredicateError(.unknownEntity) {
            try ObjectPredicate(format: "age > 3").bound(to: "Persn", in: PredicateFixtures.schema)
        }
        do {
            _ = try ObjectPredicate.truePredicate.bound(to: "Persn", in: PredicateFixtures.schema)
        } catch {
            #expect(error.message.contains("'Person'"))
            #expect(error.entity == "Persn")
        }
    }

    @Test func unknownKeyCarriesEntityAndKey() {
        let error = PredicateFixtures.error("team.titel == 'a'")
        #expect(error?.entity == "Team")
        #expect(error?.key == "titel")
    }
}

/// Expects `body` to throw a `StrataError` with `code`.
func expectPredicateError<T>(_ code: StrataError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                    _ body: () throws -> T) {
    do {
        _ = try body()
        Issue.record("expected a \(code) error", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? StrataError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}
