import Foundation
import Testing
@testable import Strata

/// One row of the table: a format, its arguments, and the expected matches as an
/// independent Swift filter over the fixture.
struct PredicateRow: CustomTestStringConvertible, Sendable {
    typealias Person = PredicateFixtures.Person
    var format: String
    var arguments: [any PredicateArgumentConvertible] = []
    var variables: [String: any PredicateArgumentConvertible]?
    var expected: @Sendable (Person) -> Bool

    init(_ format: String, _ arguments: any PredicateArgumentConvertible...,
         variables: [String: any PredicateArgumentConvertible]? = nil,
         _ expected: @escaping @Sendable (Person) -> Bool) {
        self.format = format
        self.arguments = arguments
        self.variables = variables
        self.expected = expected
    }

    /// A row whose expectation is an explicit list of names.
    init(_ format: String, _ arguments: any PredicateArgumentConvertible..., names: [String]) {
        self.format = format
        self.arguments = arguments
        self.expected = { names.contains($0.name) }
    }

    var testDescription: String { format }
}

private func folded(_ s: String) -> String { s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
private func ages(_ p: PredicateFixtures.Person) -> [Int64] { p.pets.map(\.age) }

let predicateTable: [PredicateRow] = [
    // Constants and logic
    PredicateRow("TRUEPREDICATE") { _ in true },
    PredicateRow("FALSEPREDICATE") { _ in false },
    PredicateRow("truepredicate") { _ in true },
    PredicateRow("NOT FALSEPREDICATE") { _ in true },
    PredicateRow("!TRUEPREDICATE") { _ in false },
    // Numeric comparisons, every spelling
    PredicateRow("age == 36", names: ["Ada"]),
    PredicateRow("age = 36", names: ["Ada"]),
    PredicateRow("age != 36") { $0.age != 36 },
    PredicateRow("age <> 36") { $0.age != 36 },
    PredicateRow("age < 36") { $0.age < 36 },
    PredicateRow("age <= 36") { $0.age <= 36 },
    PredicateRow("age =< 36") { $0.age <= 36 },
    PredicateRow("age > 100") { $0.age > 100 },
    PredicateRow("age >= 100") { $0.age >= 100 },
    PredicateRow("age => 100") { $0.age >= 100 },
    PredicateRow("age>=100&&age<=200", names: ["Bob", "Chloé", "Dmitri", "Greta"]),
    PredicateRow("(age >= 100) AND (age <= 200)") { $0.age >= 100 && $0.age <= 200 },
    PredicateRow("100 <= age") { $0.age >= 100 },
    PredicateRow("0 == age", names: ["Kai"]),
    PredicateRow("age > -1") { _ in true },
    PredicateRow("score < 0", names: ["Kai"]),
    PredicateRow("score > -5.6") { _ in true },
    PredicateRow("score == 64", names: ["José"]),
    PredicateRow("age == 36.0", names: ["Ada"]),
    PredicateRow("age < 36.5") { $0.age <= 36 },
    PredicateRow("age > 99.999") { $0.age >= 100 },
    PredicateRow("score >= 1e2", names: ["Élodie"]),
    PredicateRow("score <= 1.85E1") { $0.score <= 18.5 },
    PredicateRow("score == age") { $0.score == Double($0.age) },
    PredicateRow("score > age") { $0.score > Double($0.age) },
    PredicateRow("age < score") { Double($0.age) < $0.score },
    PredicateRow("#size == 1") { _ in true },
    PredicateRow("#size != 1") { _ in false },
    // BETWEEN and IN
    PredicateRow("age BETWEEN {100, 200}") { (100...200).contains($0.age) },
    PredicateRow("age between {0, 18}", names: ["hugo", "Kai"]),
    PredicateRow("age BETWEEN {200, 100}") { _ in false },
    PredicateRow("score BETWEEN {18.5, 64}") { (18.5...64).contains($0.score) },
    PredicateRow("age BETWEEN %@", [99, 100], names: ["Élodie", "Greta"]),
    PredicateRow("name BETWEEN {'A', 'C'}", names: ["Ada", "Bob"]),
    PredicateRow("birthday BETWEEN %@", [PredicateFixtures.day(0), PredicateFixtures.day(100)],
                 names: ["Ada", "Élodie", "Zoë"]),
    PredicateRow("age IN {36, 150, 7}", names: ["Ada", "Bob"]),
    PredicateRow("age IN {}") { _ in false },
    PredicateRow("name IN {'Ada', 'Kai'}", names: ["Ada", "Kai"]),
    PredicateRow("name IN[c] {'ADA', 'HUGO'}", names: ["Ada", "hugo"]),
    PredicateRow("name IN[cd] {'chloe', 'JOSE'}", names: ["Chloé", "José"]),
    PredicateRow("name IN %@", ["Bob", "Zoë"], names: ["Bob", "Zoë"]),
    PredicateRow("age IN %@", [Int](), names: []),
    PredicateRow("nickname IN {'Lo', 'Zo'}", names: ["Élodie", "Zoë"]),
    PredicateRow("NOT nickname IN {'Lo', 'Zo'}") { !["Lo", "Zo"].contains($0.nickname ?? "-") },
    PredicateRow("score IN {64, 100}", names: ["Élodie", "José"]),
    PredicateRow("'Rex' IN pets.name", names: ["Ada", "Bob", "hugo"]),
    PredicateRow("%@ IN pets.name", "Luna", names: ["Ingrid", "Zoë"]),
    PredicateRow("3 IN pets.age", names: ["Ada", "Ingrid"]),
    PredicateRow("'rex' IN[c] pets.name", names: ["Ada", "Bob", "hugo"]),
    // Strings
    PredicateRow("name == 'Ada'", names: ["Ada"]),
    PredicateRow("name == \"Ada\"", names: ["Ada"]),
    PredicateRow("name ==[c] 'ADA'", names: ["Ada"]),
    PredicateRow("name ==[d] 'Zoe'", names: ["Zoë"]),
    PredicateRow("name ==[cd] 'elodie'", names: ["Élodie"]),
    PredicateRow("name ==[dc] 'ELODIE'", names: ["Élodie"]),
    PredicateRow("name == 'ada'", names: []),
    PredicateRow("name != 'Ada'") { $0.name != "Ada" },
    PredicateRow("name !=[c] 'ada'") { $0.name != "Ada" },
    PredicateRow("name < 'C'", names: ["Ada", "Bob"]),
    PredicateRow("name >= 'Z'", names: ["Élodie", "hugo", "Zoë"]),
    PredicateRow("name <[c] 'b'", names: ["Ada"]),
    PredicateRow("name BEGINSWITH 'A'", names: ["Ada"]),
    PredicateRow("name BEGINSWITH[c] 'h'", names: ["hugo"]),
    PredicateRow("name beginswith 'H'", names: []),
    PredicateRow("name BEGINSWITH[d] 'E'", names: ["Élodie"]),
    PredicateRow("name BEGINSWITH[cd] 'e'", names: ["Élodie"]),
    PredicateRow("name BEGINSWITH ''") { _ in true },
    PredicateRow("name ENDSWITH 'e'", names: ["Élodie"]),
    PredicateRow("name ENDSWITH[d] 'e'", names: ["Chloé", "Élodie", "José", "Zoë"]),
    PredicateRow("name ENDSWITH[cd] 'E'", names: ["Chloé", "Élodie", "José", "Zoë"]),
    PredicateRow("name ENDSWITH 'é'", names: ["Chloé", "José"]),
    PredicateRow("name CONTAINS 'o'") { $0.name.contains("o") },
    PredicateRow("name CONTAINS[c] 'O'") { $0.name.lowercased().contains("o") },
    PredicateRow("name CONTAINS[d] 'o'", names: ["Bob", "Chloé", "Élodie", "hugo", "José", "Zoë"]),
    PredicateRow("name CONTAINS[cd] 'E'") { folded($0.name).contains("e") },
    PredicateRow("name CONTAINS ''") { _ in true },
    PredicateRow("name CONTAINS 'ri'", names: ["Dmitri", "Ingrid"]),
    PredicateRow("name LIKE 'A?a'", names: ["Ada"]),
    PredicateRow("name LIKE '*a'", names: ["Ada", "Greta"]),
    PredicateRow("name LIKE[c] '*A*'") { $0.name.lowercased().contains("a") },
    PredicateRow("name LIKE '?o?'", names: ["Bob", "Zoë"]),
    PredicateRow("name LIKE '*'") { _ in true },
    PredicateRow("name LIKE '???'", names: ["Ada", "Bob", "Kai", "Zoë"]),
    PredicateRow("name LIKE 'Z?e'", names: []),
    PredicateRow("name LIKE[d] 'Z?e'", names: ["Zoë"]),
    PredicateRow("name LIKE[cd] 'jos*'", names: ["José"]),
    PredicateRow("name LIKE 'D*i*i'", names: ["Dmitri"]),
    PredicateRow("name LIKE '*\\\\**'", names: []),
    PredicateRow("name MATCHES 'A.*'", names: ["Ada"]),
    PredicateRow("name MATCHES '[A-D].*'", names: ["Ada", "Bob", "Chloé", "Dmitri"]),
    PredicateRow("name MATCHES 'd'", names: []),
    PredicateRow("name MATCHES 'da'", names: []),
    PredicateRow("name MATCHES[c] 'h.*'", names: ["hugo"]),
    PredicateRow("name MATCHES 'Ada|Bob'", names: ["Ada", "Bob"]),
    PredicateRow("name MATCHES '\\\\w{3}'") { $0.name.count == 3 },
    PredicateRow("name MATCHES[d] 'Zoe'", names: ["Zoë"]),
    PredicateRow("name MATCHES[cd] 'e.*'", names: ["Élodie"]),
    PredicateRow("nickname BEGINSWITH 'f'", names: ["Frank"]),
    PredicateRow("nickname ==[c] name", names: ["hugo"]),
    PredicateRow("name BEGINSWITH nickname") { p in p.nickname.map { p.name.hasPrefix($0) } ?? false },
    PredicateRow("name == 'Jos\\u00e9'", names: ["José"]),
    PredicateRow("name == \"Zo\\u00EB\"", names: ["Zoë"]),
    PredicateRow("name == 'it\\'s'", names: []),
    // Nil
    PredicateRow("nickname == nil") { $0.nickname == nil },
    PredicateRow("nickname == NULL") { $0.nickname == nil },
    PredicateRow("nickname = NIL") { $0.nickname == nil },
    PredicateRow("nickname != nil") { $0.nickname != nil },
    PredicateRow("nil == nickname") { $0.nickname == nil },
    PredicateRow("nickname == ''", names: ["Ingrid"]),
    PredicateRow("nickname != 'Lo'") { $0.nickname != "Lo" },
    PredicateRow("nickname < 'B'") { ($0.nickname ?? "~") < "B" },
    PredicateRow("NOT nickname BEGINSWITH 'Z'") { !($0.nickname?.hasPrefix("Z") ?? false) },
    PredicateRow("age != nil") { _ in true },
    PredicateRow("birthday == nil", names: ["Chloé", "Frank", "Ingrid", "Kai"]),
    PredicateRow("photo != nil", names: ["Ada", "Chloé"]),
    PredicateRow("team == nil", names: ["Dmitri", "hugo", "Kai"]),
    PredicateRow("team != nil") { $0.team != nil },
    PredicateRow("team.title == nil", names: ["Dmitri", "hugo", "Kai"]),
    // Booleans
    PredicateRow("active == YES") { $0.active },
    PredicateRow("active == TRUE") { $0.active },
    PredicateRow("active = true") { $0.active },
    PredicateRow("active == NO") { !$0.active },
    PredicateRow("active == false") { !$0.active },
    PredicateRow("active != YES") { !$0.active },
    PredicateRow("active == %@", true) { $0.active },
    // Dates, UUIDs, data as arguments
    PredicateRow("birthday < %@", PredicateFixtures.day(0), names: ["Bob", "hugo"]),
    PredicateRow("birthday >= %@", PredicateFixtures.day(365), names: ["Dmitri", "Greta"]),
    PredicateRow("birthday == %@", PredicateFixtures.day(0), names: ["Élodie"]),
    PredicateRow("birthday == CAST(0.0, \"NSDate\")", names: ["Élodie"]),
    PredicateRow("birthday == CAST(8640000, \"NSDate\")", names: ["Ada"]),
    PredicateRow("id == %@", PredicateFixtures.uuid(3), names: ["Dmitri"]),
    PredicateRow("id != %@", PredicateFixtures.uuid(3)) { $0.name != "Dmitri" },
    PredicateRow("id IN %@", [PredicateFixtures.uuid(1), PredicateFixtures.uuid(2)], names: ["Bob", "Chloé"]),
    PredicateRow("id == CAST(\"00000000-0000-0000-0000-000000000005\", \"UUID\")", names: ["Frank"]),
    PredicateRow("photo == %@", Data([1, 2, 3]), names: ["Ada"]),
    PredicateRow("photo == CAST(\"\", \"NSData\")", names: ["Chloé"]),
    PredicateRow("photo == CAST(\"AQID\", \"NSData\")", names: ["Ada"]),
    // Arguments
    PredicateRow("age >= %@ AND name BEGINSWITH[c] %@", 100, "d", names: ["Dmitri"]),
    PredicateRow("%K == %@", "name", "Bob", names: ["Bob"]),
    PredicateRow("%K == %@", PredicateArgument.keyPath("team.title"), "Red", names: ["Ada", "Chloé", "Ingrid"]),
    PredicateRow("%K.title == 'Blue'", "team", names: ["Bob", "Élodie", "José"]),
    PredicateRow("%K > 2", "pets.@count", names: ["Dmitri"]),
    PredicateRow("age > %d", 150, names: ["Dmitri", "Frank"]),
    PredicateRow("age > %i", 150, names: ["Dmitri", "Frank"]),
    PredicateRow("score > %f", 99.9, names: ["Élodie"]),
    PredicateRow("score > %f", 99, names: ["Élodie", "Zoë"]),
    PredicateRow("nickname == %@", String?.none) { $0.nickname == nil },
    PredicateRow("age IN %@", Set([0, 18]), names: ["hugo", "Kai"]),
    // Variables
    PredicateRow("age >= $min AND age <= $max", variables: ["min": 100, "max": 150]) { (100...150).contains($0.age) },
    PredicateRow("name IN $names", variables: ["names": ["Ada", "Zoë"]]) { ["Ada", "Zoë"].contains($0.name) },
    PredicateRow("age IN {$a, 64}", variables: ["a": 0]) { [0, 64].contains($0.age) },
    PredicateRow("$key == 'Green'", variables: ["key": PredicateArgument.keyPath("team.title")]) { $0.team?.title == "Green" },
    // To-one key paths
    PredicateRow("team.title == 'Red'", names: ["Ada", "Chloé", "Ingrid"]),
    PredicateRow("team.rank >= 2") { ($0.team?.rank ?? 0) >= 2 },
    PredicateRow("team.rank != 2") { $0.team?.rank != 2 },
    PredicateRow("team.title BEGINSWITH[c] 'g'", names: ["Frank", "Greta", "Zoë"]),
    PredicateRow("team.rank == age") { $0.team.map { $0.rank } == $0.age },
    // To-many: quantifiers
    PredicateRow("ANY pets.name == 'Rex'", names: ["Ada", "Bob", "hugo"]),
    PredicateRow("SOME pets.name == 'Rex'", names: ["Ada", "Bob", "hugo"]),
    PredicateRow("any pets.age > 10", names: ["Bob", "Kai"]),
    PredicateRow("ALL pets.age > 2") { $0.pets.allSatisfy { $0.age > 2 } },
    PredicateRow("NONE pets.age > 2") { !$0.pets.contains { $0.age > 2 } },
    PredicateRow("NOT ANY pets.age > 2") { !$0.pets.contains { $0.age > 2 } },
    PredicateRow("ANY pets.weight == nil", names: ["Ada", "Dmitri"]),
    PredicateRow("ALL pets.weight != nil") { $0.pets.allSatisfy { $0.weight != nil } },
    PredicateRow("ANY pets.weight > 20", names: ["Bob", "Dmitri", "Greta"]),
    PredicateRow("ANY pets.name BEGINSWITH[c] 'b'", names: ["Dmitri", "Ingrid"]),
    PredicateRow("ANY pets.name IN {'Zed', 'Fifi'}", names: ["Dmitri", "Kai"]),
    PredicateRow("ANY pets.age BETWEEN {5, 7}", names: ["Ada", "Dmitri", "Ingrid"]),
    PredicateRow("ALL pets.name LIKE '?e?'") { $0.pets.allSatisfy { $0.name.count == 3 && Array($0.name)[1] == "e" } },
    PredicateRow("ANY pets.name MATCHES 'L.*'", names: ["Ingrid", "Zoë"]),
    PredicateRow("ANY pets.age == age") { p in p.pets.contains { $0.age == p.age } },
    PredicateRow("ANY pets.age < team.rank") { p in p.team.map { t in p.pets.contains { $0.age < t.rank } } ?? false },
    // Aggregates
    PredicateRow("pets.@count == 0", names: ["Chloé", "Frank", "José"]),
    PredicateRow("pets.@count > 1", names: ["Ada", "Dmitri", "Ingrid"]),
    PredicateRow("pets.@COUNT >= 1") { !$0.pets.isEmpty },
    PredicateRow("pets.@sum.age > 10", names: ["Bob", "Kai"]),
    PredicateRow("pets.@sum.age == 0", names: ["Chloé", "Frank", "José"]),
    PredicateRow("pets.@sum.weight > 30", names: ["Greta"]),
    PredicateRow("pets.@avg.age == 4", names: ["Ada", "Élodie"]),
    PredicateRow("pets.@avg.age > 3.5") { p in !p.pets.isEmpty && Double(ages(p).reduce(0, +)) / Double(p.pets.count) > 3.5 },
    PredicateRow("pets.@avg.age == nil", names: ["Chloé", "Frank", "José"]),
    PredicateRow("pets.@avg.weight == 27.5", names: []),
    PredicateRow("pets.@avg.weight == 13.5", names: ["Dmitri"]),
    PredicateRow("pets.@min.age <= 1", names: ["Dmitri", "hugo"]),
    PredicateRow("pets.@max.age >= 9", names: ["Bob", "Greta", "Kai"]),
    PredicateRow("pets.@max.name == 'Tom'", names: ["Ada", "Élodie"]),
    PredicateRow("pets.@min.name BEGINSWITH 'B'", names: ["Dmitri", "Ingrid"]),
    PredicateRow("pets.@count == pets.@count") { _ in true },
    PredicateRow("pets.@count < age") { Int64($0.pets.count) < $0.age },
    PredicateRow("pets.@count BETWEEN {1, 2}") { (1...2).contains($0.pets.count) },
    PredicateRow("pets.@count IN {3}", names: ["Dmitri"]),
    // Precedence and grouping
    PredicateRow("age < 20 OR age > 199 AND active == YES") { $0.age < 20 || ($0.age > 199 && $0.active) },
    PredicateRow("(age < 20 OR age > 199) AND active == YES") { ($0.age < 20 || $0.age > 199) && $0.active },
    PredicateRow("NOT age < 20 AND active == YES") { !($0.age < 20) && $0.active },
    PredicateRow("NOT (age < 20 AND active == YES)") { !($0.age < 20 && $0.active) },
    PredicateRow("age < 20 || age > 199 && active == NO") { $0.age < 20 || ($0.age > 199 && !$0.active) },
    PredicateRow("!(active == YES) or age == 0") { !$0.active || $0.age == 0 },
    PredicateRow("NOT NOT active == YES") { $0.active },
    PredicateRow("age > 10 and age < 40 and active == yes", names: ["Ada", "hugo", "Zoë"]),
    PredicateRow("((((age == 36))))", names: ["Ada"]),
    PredicateRow("  age\n==\t36  ", names: ["Ada"]),
]

@Suite struct PredicateTableTests {
    @Test func tableHasAtLeast150Rows() {
        #expect(predicateTable.count + predicateErrorTable.count >= 150)
        #expect(predicateTable.count >= 150)
    }

    @Test(arguments: predicateTable)
    func row(_ row: PredicateRow) throws {
        let actual = try PredicateFixtures.names(row.format, row.arguments, variables: row.variables)
        let expected = PredicateFixtures.people.filter(row.expected).map(\.name)
        #expect(actual == expected, "\(row.format)")
    }

    @Test func rowsAreNotAllTrivial() throws {
        // The table discriminates: most rows match some but not all people.
        var partial = 0
        for row in predicateTable {
            let count = PredicateFixtures.people.filter(row.expected).count
            if count > 0 && count < PredicateFixtures.people.count { partial += 1 }
        }
        #expect(partial >= 120)
    }
}
