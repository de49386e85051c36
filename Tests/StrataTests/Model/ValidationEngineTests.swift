import Foundation
import Testing
@testable import Strata

@Suite("Validation engine")
struct ValidationEngineTests {
    static let even = CustomValidation("even") { value in
        if case .int(let n) = value { return n % 2 == 0 }
        return false
    }

    static let entity = Entity(
        name: "Person",
        attributes: [
            Attribute(name: "name", type: .string, validationRules: [.length(min: 2, max: 5)]),
            Attribute(name: "code", type: .string, isOptional: true, validationRules: [.pattern("[A-Z]{3}")]),
            Attribute(name: "age", type: .int16, isOptional: true,
                      validationRules: [.range(min: .int(0), max: .int(150)), .custom(even)]),
            Attribute(name: "score", type: .double, isOptional: true,
                      validationRules: [.range(min: .double(0), max: .double(1))]),
            Attribute(name: "born", type: .date, isOptional: true,
                      validationRules: [.range(min: .date(Date(timeIntervalSince1970: 0)), max: nil)]),
            Attribute(name: "email", type: .string),
        ],
        relationships: [
            Relationship(name: "team", destination: "Team", inverse: "members", isOptional: false),
            Relationship(name: "friends", destination: "Person", inverse: "friends", isToMany: true),
        ])

    @Test func validObjectHasNoViolations() throws {
        let values: [String: AttributeValue] = [
            "name": "Ada", "code": "ABC", "age": 36, "score": 0.5,
            "born": .date(Date(timeIntervalSince1970: 1)), "email": "a@b",
        ]
        #expect(Self.entity.violations(of: values, relationshipCounts: ["team": 1], object: "p1").isEmpty)
        try Self.entity.validate(values, relationshipCounts: ["team": 1], object: "p1")
    }

    @Test func valuesAreAskedForOnlyWhereSomethingCanBreak() {
        let entity = Entity(name: "Note", attributes: [
            Attribute(name: "title", type: .string),
            Attribute(name: "body", type: .string, isOptional: true),
            Attribute(name: "tag", type: .string, isOptional: true, validationRules: [.length(min: 1, max: 3)]),
        ])
        let values: [AttributeValue] = [.null, .string("anything"), .string("long")]
        var asked: [Int] = []
        let found = entity.violations(valueAt: { asked.append($0); return values[$0] }, relationshipCount: { _ in 0 },
                                      object: "n")
        // `body` is optional and has no rules: nothing it holds is a violation.
        #expect(asked == [0, 2])
        #expect(found.map { "\($0.key) \($0.rule)" } == ["title required", "tag length 1...3"])
        #expect(found == entity.violations(of: ["body": "anything", "tag": "long"], object: "n"))
    }

    @Test func everyRuleKindBrokenIsReportedTogether() {
        let values: [String: AttributeValue] = [
            "name": "Adalovelace",                              // length 2...5
            "code": "abcd",                                     // pattern
            "age": 151,                                         // range and custom "even"
            "score": 1.5,                                       // double range
            "born": .date(Date(timeIntervalSince1970: -1)),     // date range
            // "email" missing: required
        ]
        let found = Self.entity.violations(of: values, relationshipCounts: [:], object: "strata://s/Person/7")
        let summary = found.map { "\($0.key) \($0.rule)" }
        #expect(summary == [
            "name length 2...5",
            "code pattern /[A-Z]{3}/",
            "age range 0...150",
            "age custom 'even'",
            "score range 0.0...1.0",
            "born range 1970-01-01T00:00:00.000Z...",
            "email required",
            "team required",
        ])
        #expect(found.allSatisfy { $0.entity == "Person" && $0.object == "strata://s/Person/7" })
        #expect(found[0].value == "Adalovelace")
        #expect(found[2].value == 151)
        #expect(found[6].value == .null)
        #expect(found[7].value == .int(0))
    }

    @Test func patternMustMatchTheWholeString() {
        let rule = ValidationRule.pattern("a|ab")
        #expect(rule.accepts("ab"))
        #expect(rule.accepts("a"))
        #expect(!rule.accepts("abc"))
        #expect(!rule.accepts("xab"))
        #expect(!ValidationRule.pattern("[a-z]+").accepts("abc\n"))
    }

    @Test func lengthCountsCharactersForStringsAndBytesForBinary() {
        let rule = ValidationRule.length(min: nil, max: 2)
        #expect(rule.accepts("é👍🏽"))                       // 2 characters, more UTF-8 bytes
        #expect(!rule.accepts("abc"))
        #expect(rule.accepts(.binary(Data([1, 2]))))
        #expect(!rule.accepts(.binary(Data([1, 2, 3]))))
    }

    @Test func rulesSkipNilAndOptionalAttributesAcceptNil() {
        #expect(ValidationRule.range(min: .int(1), max: nil).accepts(.null))
        let values: [String: AttributeValue] = ["name": "Ada", "email": "e", "age": .null]
        #expect(Self.entity.violations(of: values, relationshipCounts: ["team": 2], object: "p").isEmpty)
    }

    @Test func rangeComparesIntegersAndDoublesTogetherAndRejectsNaN() {
        let rule = ValidationRule.range(min: .double(0.5), max: .double(2.5))
        #expect(rule.accepts(.int(2)))
        #expect(!rule.accepts(.int(3)))
        #expect(!rule.accepts(.double(.nan)))
        #expect(!rule.accepts("2"))
    }

    @Test func errorListsEveryViolationWithoutValues() throws {
        let values: [String: AttributeValue] = ["name": "Secretname", "email": "x", "age": 3]
        let error = #expect(throws: StrataError.self) {
            try Self.entity.validate(values, relationshipCounts: ["team": 1], object: "strata://s/Person/1")
        }
        let caught = try #require(error)
        #expect(caught.code == .validation)
        #expect(caught.entity == "Person")
        #expect(caught.message.contains("2 validation rules are broken"))
        #expect(caught.message.contains("Person strata://s/Person/1: 'name' must have a length (in characters) in the range 2...5"))
        #expect(caught.message.contains("'age' must pass the custom rule 'even'"))
        #expect(!caught.message.contains("Secretname"))
        #expect(!caught.description.contains("Secretname"))
        let failure = try #require(ValidationFailure(caught))
        #expect(failure.violations.map(\.key) == ["name", "age"])
        #expect(failure.violations[0].value == "Secretname")
    }

    @Test func singleViolationErrorNamesTheKey() {
        let error = ValidationFailure([
            ValidationViolation(entity: "Person", object: "p", key: "email", value: .null, rule: .required),
        ]).error
        #expect(error.key == "email")
        #expect(error.message.contains("'email' is required but is nil"))
    }

    @Test func validateTypeChecksBeforeRules() {
        expectModelError(.typeMismatch) {
            try Self.entity.validate(["name": 5, "email": "x"], relationshipCounts: ["team": 1], object: "p")
        }
    }
}
