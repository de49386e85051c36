import Foundation
import Testing
@testable import Strata

@Suite struct PredicateFormatTests {
    @Test func parsesIntoTheExpectedTree() throws {
        let p = try ObjectPredicate(format: "age >= 18 AND name BEGINSWITH[cd] 'A' OR NOT ANY pets.@sum.age > 2.5")
        let expected: ObjectPredicate = .or(
            .and(.comparison(.init(.keyPath(["age"]), .greaterThanOrEqualTo, .constant(18))),
                 .comparison(.init(.keyPath(["name"]), .beginsWith, .constant("A"),
                                   options: [.caseInsensitive, .diacriticInsensitive]))),
            .not(.comparison(.init(.aggregate(.sum, collection: ["pets"], key: ["age"]), .greaterThan,
                                   .constant(2.5), modifier: .any))))
        #expect(p == expected)
    }

    @Test func literalsAndKeywordsAreCaseInsensitive() throws {
        #expect(try ObjectPredicate(format: "a == yes or b == No and c == nil") ==
                ObjectPredicate(format: "a == YES OR b == NO AND c == NULL"))
        #expect(try ObjectPredicate(format: "a = -9223372036854775808") ==
                .comparison(.init(.keyPath(["a"]), .equalTo, .constant(.int(.min)))))
        #expect(try ObjectPredicate(format: "a == 'x\\n\\t\\\\\\'\\\"\\u00e9\\uD83D\\uDE00'") ==
                .comparison(.init(.keyPath(["a"]), .equalTo, .constant("x\n\t\\'\"é😀"))))
        #expect(try ObjectPredicate(format: "#in == 1 AND a.#and == 2") ==
                .and(.comparison(.init(.keyPath(["in"]), .equalTo, .constant(1))),
                     .comparison(.init(.keyPath(["a", "and"]), .equalTo, .constant(2)))))
    }

    @Test func printsCanonicalFormat() throws {
        let p = try ObjectPredicate(format: "a = 1 && (b <> 2 || c =< 3) && !(d => 4.0) AND e IN {1,2}")
        #expect(p.predicateFormat == "a == 1 AND (b != 2 OR c <= 3) AND NOT d >= 4.0 AND e IN {1, 2}")
        #expect(try ObjectPredicate(format: "a OR (b == 1 OR c == 2)".replacingOccurrences(of: "a OR", with: "a == 0 OR")).description
                == "a == 0 OR (b == 1 OR c == 2)")
        #expect(ObjectPredicate.key("size").equals(1).predicateFormat == "#size == 1")
        #expect(ObjectPredicate.key("d").equals(Date(timeIntervalSinceReferenceDate: 1.5)).predicateFormat
                == "d == CAST(1.5, \"NSDate\")")
        #expect(ObjectPredicate.key("u").equals(PredicateFixtures.uuid(7)).predicateFormat
                == "u == CAST(\"00000000-0000-0000-0000-000000000007\", \"UUID\")")
        #expect(ObjectPredicate.key("b").equals(Data([1, 2, 3])).predicateFormat == "b == CAST(\"AQID\", \"NSData\")")
        #expect(ObjectPredicate.key("s").equals("a\"b\u{1}").predicateFormat == "s == \"a\\\"b\\u0001\"")
        #expect(ObjectPredicate.key("x").equals(Double.infinity).predicateFormat == "x == 1e999")
    }

    @Test func builderMatchesTheFormat() throws {
        let built = ObjectPredicate.key("age").between(100, 200)
            && ObjectPredicate.key("name").beginsWith("A", options: .caseInsensitive)
            && (ObjectPredicate.any("pets.name") == "Rex" || ObjectPredicate.key("pets").count > 2)
            && !ObjectPredicate.key("nickname").isNil
            && ObjectPredicate.key("pets").sum("age") >= 3
            && ObjectPredicate.key("pets.@avg.age") < 2.5
            && ObjectPredicate.key("team.title").isIn(["Red", "Blue"])
            && ObjectPredicate.all("pets.age") != ObjectPredicate.key("age")
        let parsed = try ObjectPredicate(format: """
            age BETWEEN {100, 200} AND name BEGINSWITH[c] "A" AND (ANY pets.name == "Rex" OR pets.@count > 2) \
            AND NOT nickname == nil AND pets.@sum.age >= 3 AND pets.@avg.age < 2.5 \
            AND team.title IN {"Red", "Blue"} AND ALL pets.age != age
            """)
        #expect(built == parsed)
        _ = try built.bound(to: PredicateFixtures.person, in: PredicateFixtures.schema)
    }

    @Test func variablesCanBeSubstitutedLater() throws {
        let template = try ObjectPredicate(format: "age >= $min AND name IN {$a, 'x'}")
        #expect(template.variableNames == ["a", "min"])
        expectPredicateError(.predicateArgument) {
            try template.bound(to: PredicateFixtures.person, in: PredicateFixtures.schema)
        }
        let filled = try template.substituting(["min": 100, "a": "Bob"])
        #expect(filled == (try ObjectPredicate(format: "age >= 100 AND name IN {'Bob', 'x'}")))
        #expect(filled.variableNames.isEmpty)
        expectPredicateError(.predicateArgument) { try template.substituting(["min": 1]) }
        expectPredicateError(.predicateArgument) { try template.substituting(["min": 1, "a": [1, 2]]) }
    }

    @Test func rangeConstraintsForChunkSkipping() throws {
        func ranges(_ format: String) throws -> [String: PredicateRange] {
            try ObjectPredicate(format: format).bound(to: PredicateFixtures.person, in: PredicateFixtures.schema).rangeConstraints
        }
        let age = try #require(try ranges("age >= 100 AND age <= 200")["age"])
        #expect(age == PredicateRange(lower: 100, upper: 200))
        #expect(age.description == "[100, 200]")
        #expect(!age.mayOverlap(min: 0, max: 99))
        #expect(age.mayOverlap(min: 150, max: 300))
        #expect(!age.mayOverlap(min: 201, max: 300))
        #expect(try ranges("age BETWEEN {100, 200}")["age"] == PredicateRange(lower: 100, upper: 200))
        #expect(try ranges("age > 5 AND 10 > age AND name == 'x'") ==
                ["age": PredicateRange(lower: 5, lowerInclusive: false, upper: 10, upperInclusive: false),
                 "name": PredicateRange(lower: "x", upper: "x")])
        #expect(try ranges("age < 5 OR age > 10")["age"] == PredicateRange())
        #expect(try ranges("age IN {3, 1, 2} OR age == 7")["age"] == PredicateRange(lower: 1, upper: 7))
        #expect(try ranges("age > 5 OR score > 1").isEmpty)
        #expect(try ranges("NOT age > 5").isEmpty)
        #expect(try ranges("team.rank > 5 AND name ==[c] 'x' AND ANY pets.age > 3").isEmpty)
        let empty = try #require(try ranges("age > 5 AND age < 3")["age"])
        #expect(empty.isEmpty)
        #expect(!empty.mayOverlap(min: 0, max: 100))
        #expect(try ranges("score >= 1 AND score < 2.5")["score"]?.contains(.int(2)) == true)
    }

    @Test func boundPredicateDescribesItself() throws {
        let bound = try ObjectPredicate(format: "age=1").bound(to: "Person", in: PredicateFixtures.schema)
        #expect(bound.description == "age == 1")
        #expect(bound.entityName == "Person")
    }

    @Test func likeMatcher() {
        #expect(ValueComparison.like("", "*"))
        #expect(!ValueComparison.like("", "?"))
        #expect(ValueComparison.like("abcabc", "*abc"))
        #expect(ValueComparison.like("a*b", "a\\*b"))
        #expect(!ValueComparison.like("axb", "a\\*b"))
        #expect(ValueComparison.like("mississippi", "m*iss*pi"))
        #expect(!ValueComparison.like("mississippi", "m*iss*pix"))
    }

    @Test func integersAndDoublesCompareExactly() {
        #expect(ValueComparison.order(.int(Int64.max), .double(9_223_372_036_854_775_807.0)) == .orderedAscending)
        #expect(ValueComparison.order(.int(3), .double(3.5)) == .orderedAscending)
        #expect(ValueComparison.order(.double(-3.5), .int(-3)) == .orderedAscending)
        #expect(ValueComparison.order(.int(-4), .double(-3.5)) == .orderedAscending)
        #expect(ValueComparison.equal(.int(2), .double(2.0)))
        #expect(ValueComparison.order(.string("a"), .int(1)) == nil)
    }
}
