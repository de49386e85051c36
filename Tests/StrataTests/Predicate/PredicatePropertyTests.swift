import Foundation
import PropertyBased
import Testing
@testable import Strata

/// Random predicate trees covering everything the parser can produce.
enum RandomPredicate {
    typealias RNG = any SeededRandomNumberGenerator

    static let names = ["age", "name", "team", "pets", "x_1", "size", "in", "Any", "Ünïcode", "_", "nil"]

    static func pick<T>(_ items: [T], _ rng: inout RNG) -> T { items[Int.random(in: 0..<items.count, using: &rng)] }

    static func string(_ rng: inout RNG) -> String {
        let pieces: [String] = ["a", "Z", "é", "e\u{301}", "\u{301}", "\"", "'", "\\", "\n", "\t", "\r", "\0",
                                "\u{7}", "\u{85}", "*", "?", "%@", "$x", "{", " ", "😀", "AND", "ß"]
        return (0..<Int.random(in: 0...6, using: &rng)).map { _ in pick(pieces, &rng) }.joined()
    }

    static func constant(_ rng: inout RNG) -> AttributeValue {
        switch Int.random(in: 0...8, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(pick([0, 1, -1, Int64.min, Int64.max, Int64.random(in: -1000...1000, using: &rng)], &rng))
        case 3: return .double(pick([0.0, -0.0, 1.5, -2.25, 1e300, .leastNonzeroMagnitude, .infinity, -.infinity, 0.1,
                                     Double.random(in: -1e6...1e6, using: &rng)], &rng))
        case 4, 5: return .string(string(&rng))
        case 6: return .date(Date(timeIntervalSinceReferenceDate: pick([0, -1.5, 7.25e8, Double.random(in: -1e9...1e9, using: &rng)], &rng)))
        case 7: return .uuid(UUID(uuid: (UInt8.random(in: 0...255, using: &rng), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                         UInt8.random(in: 0...255, using: &rng))))
        default: return .binary(Data((0..<Int.random(in: 0...5, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        }
    }

    static func path(_ rng: inout RNG) -> [String] {
        (0..<Int.random(in: 1...3, using: &rng)).map { _ in pick(names, &rng) }
    }

    static func scalar(_ rng: inout RNG) -> ObjectPredicate.Expression {
        Bool.random(using: &rng) ? .constant(constant(&rng)) : .variable(pick(names, &rng))
    }

    static func expression(_ rng: inout RNG, list: Bool) -> ObjectPredicate.Expression {
        switch Int.random(in: 0...(list ? 5 : 4), using: &rng) {
        case 0, 1: return .keyPath(path(&rng))
        case 2: return .constant(constant(&rng))
        case 3: return .variable(pick(names, &rng))
        case 4:
            let function = pick(ObjectPredicate.Aggregate.allCases, &rng)
            return .aggregate(function, collection: path(&rng), key: function == .count ? [] : path(&rng))
        default: return .list((0..<Int.random(in: 0...3, using: &rng)).map { _ in scalar(&rng) })
        }
    }

    static func comparison(_ rng: inout RNG) -> ObjectPredicate.Comparison {
        let op = pick(ObjectPredicate.Operator.allCases, &rng)
        var right = expression(&rng, list: true)
        if op == .between { right = .list([scalar(&rng), scalar(&rng)]) }
        if op == .matches, case .constant(.string) = right { right = .constant(.string("a.*")) }
        var options: ObjectPredicate.Options = []
        if Bool.random(using: &rng) { options.insert(.caseInsensitive) }
        if Bool.random(using: &rng) { options.insert(.diacriticInsensitive) }
        return ObjectPredicate.Comparison(expression(&rng, list: false), op, right,
                                    modifier: pick(ObjectPredicate.Modifier.allCases, &rng), options: options)
    }

    static func predicate(_ rng: inout RNG, depth: Int) -> ObjectPredicate {
        switch Int.random(in: 0...(depth > 0 ? 6 : 2), using: &rng) {
        case 0: return Bool.random(using: &rng) ? .truePredicate : .falsePredicate
        case 1, 2: return .comparison(comparison(&rng))
        case 3: return .not(predicate(&rng, depth: depth - 1))
        case 4: return .or(predicate(&rng, depth: depth - 1), predicate(&rng, depth: depth - 1))
        default: return .and(predicate(&rng, depth: depth - 1), predicate(&rng, depth: depth - 1))
        }
    }

    static let generator = Generator<ObjectPredicate, Shrink.None<ObjectPredicate>> { rng in predicate(&rng, depth: 4) }
}

/// Random people, and random simple predicates paired with a plain Swift check.
enum RandomQuery {
    typealias RNG = any SeededRandomNumberGenerator
    typealias Person = PredicateFixtures.Person
    typealias Check = @Sendable (Person) -> Bool

    static func person(_ rng: inout RNG, _ i: Int) -> Person {
        let nick: String? = Bool.random(using: &rng) ? nil : RandomPredicate.pick(["al", "Bo", "ALF", "", "b"], &rng)
        let pets = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            PredicateFixtures.Pet(name: RandomPredicate.pick(["Rex", "rex", "Tom"], &rng),
                                  age: Int64.random(in: 0...10, using: &rng), weight: nil)
        }
        return Person(name: RandomPredicate.pick(["Al", "bob", "Alma", "Béa"], &rng), age: Int64.random(in: 0...20, using: &rng),
                      score: Double(Int.random(in: -20...20, using: &rng)) / 2, nickname: nick, active: Bool.random(using: &rng),
                      birthday: nil, id: PredicateFixtures.uuid(i), photo: nil, team: nil, pets: pets)
    }

    static func atom(_ rng: inout RNG) -> (String, Check) {
        let ops: [(String, @Sendable (Double, Double) -> Bool)] = [
            ("<", { $0 < $1 }), ("<=", { $0 <= $1 }), (">", { $0 > $1 }), (">=", { $0 >= $1 }),
            ("==", { $0 == $1 }), ("!=", { $0 != $1 }),
        ]
        let (symbol, op) = RandomPredicate.pick(ops, &rng)
        let n = Int64.random(in: 0...20, using: &rng)
        let half = Double(Int.random(in: -20...20, using: &rng)) / 2
        switch Int.random(in: 0...8, using: &rng) {
        case 0: return ("age \(symbol) \(n)", { op(Double($0.age), Double(n)) })
        case 1: return ("score \(symbol) \(half)", { op($0.score, half) })
        case 2: return ("age \(symbol) \(half)", { op(Double($0.age), half) })
        case 3: return ("nickname == nil", { $0.nickname == nil })
        case 4: return ("nickname BEGINSWITH[c] 'a'", { $0.nickname?.lowercased().hasPrefix("a") ?? false })
        case 5: return ("pets.@count \(symbol) \(n % 4)", { op(Double($0.pets.count), Double(n % 4)) })
        case 6: return ("ANY pets.age \(symbol) \(n % 11)", { p in p.pets.contains { op(Double($0.age), Double(n % 11)) } })
        case 7: return ("ALL pets.name ==[c] 'rex'", { $0.pets.allSatisfy { $0.name.lowercased() == "rex" } })
        default:
            let lo = Int64.random(in: 0...20, using: &rng), hi = Int64.random(in: 0...20, using: &rng)
            return ("age BETWEEN {\(lo), \(hi)}", { $0.age >= lo && $0.age <= hi })
        }
    }

    static func query(_ rng: inout RNG, depth: Int) -> (String, Check) {
        switch Int.random(in: 0...(depth > 0 ? 4 : 0), using: &rng) {
        case 0, 1: return atom(&rng)
        case 2:
            let (f, c) = query(&rng, depth: depth - 1)
            return ("NOT (\(f))", { !c($0) })
        case 3:
            let (f, c) = query(&rng, depth: depth - 1), (g, d) = query(&rng, depth: depth - 1)
            return ("(\(f)) OR (\(g))", { c($0) || d($0) })
        default:
            let (f, c) = query(&rng, depth: depth - 1), (g, d) = query(&rng, depth: depth - 1)
            return ("(\(f)) AND (\(g))", { c($0) && d($0) })
        }
    }

    struct Case: Sendable {
        var format: String
        var check: Check
        var people: [Person]
    }

    static let generator = Generator<Case, Shrink.None<Case>> { rng in
        let (format, check) = query(&rng, depth: 3)
        let people = (0..<Int.random(in: 0...12, using: &rng)).map { person(&rng, $0) }
        return Case(format: format, check: check, people: people)
    }
}

@Suite struct PredicatePropertyTests {
    @Test func printThenParseIsTheIdentity() async throws {
        await propertyCheck(count: 500, input: RandomPredicate.generator) { predicate in
            let format = predicate.predicateFormat
            let reparsed = try ObjectPredicate(format: format)
            #expect(reparsed == predicate, "\(format)")
            #expect(reparsed.predicateFormat == format)
        }
    }

    @Test func evaluationAgreesWithPlainSwift() async throws {
        await propertyCheck(count: 300, input: RandomQuery.generator) { item in
            let bound = try ObjectPredicate(format: item.format).bound(to: PredicateFixtures.person, in: PredicateFixtures.schema)
            for person in item.people {
                #expect(bound.evaluate(with: person) == item.check(person), "\(item.format) on \(person.name)")
            }
            // Range constraints are sound: every match lies in them.
            for (key, range) in bound.rangeConstraints {
                for person in item.people where bound.evaluate(with: person) {
                    #expect(range.contains(person.value(forKey: key)), "\(item.format): \(key) in \(range)")
                }
            }
        }
    }

    @Test func parsedTextArgumentsRoundTrip() async throws {
        let constants = Generator<AttributeValue, Shrink.None<AttributeValue>> { rng in RandomPredicate.constant(&rng) }
        await propertyCheck(count: 300, input: constants) { value in
            let predicate = try ObjectPredicate(format: "name == %@", value)
            #expect(try ObjectPredicate(format: predicate.predicateFormat) == predicate)
        }
    }
}
