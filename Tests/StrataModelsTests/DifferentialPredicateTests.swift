import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// `#Predicate` and `SortDescriptor`, translated, against the same predicate written as a
/// string (and against Swift's own evaluation of the predicate on each object): the same
/// objects in the same order, on the same store.
@Suite struct DifferentialPredicateTests {
    /// One random case: a typed descriptor and the string predicate and sort keys a person
    /// would write for it.
    struct Case {
        let label: String
        let predicate: Predicate<Person>
        let format: String
        let arguments: [any PredicateArgumentConvertible]
    }

    static let names = ["ada", "alan", "grace", "edsger", "barbara", "donald", "ken", "dennis", "bjarne", "guido", "Ada", "ALAN", "zoë", ""]
    static let fragments = ["a", "an", "d", "zz", "ra", "A", "e", ""]

    static func randomCase(_ rng: inout SplitMix64) -> Case {
        let n = names[Int(rng.next() % UInt64(names.count))]
        let f = fragments[Int(rng.next() % UInt64(fragments.count))]
        let age = Int(rng.next() % 120)
        let age2 = Int(rng.next() % 120)
        let score = Double(rng.next() % 1000) / 10
        let b = rng.next() % 2 == 0
        let list = [names[Int(rng.next() % UInt64(names.count))], names[Int(rng.next() % UInt64(names.count))]]
        let born = Date(timeIntervalSince1970: Double(rng.next() % 1_000_000))
        let team = "team\(rng.next() % 6)"
                switch rng.next() % 24 {
        case 0: return Case(label: "age == \(age)", predicate: #Predicate { $0.age == age }, format: "age == %@", arguments: [age])
        case 1: return Case(label: "age != \(age)", predicate: #Predicate { $0.age != age }, format: "age != %@", arguments: [age])
        case 2: return Case(label: "age < \(age)", predicate: #Predicate { $0.age < age }, format: "age < %@", arguments: [age])
        case 3: return Case(label: "age <= \(age)", predicate: #Predicate { $0.age <= age }, format: "age <= %@", arguments: [age])
        case 4: return Case(label: "\(age) < age", predicate: #Predicate { age < $0.age }, format: "age > %@", arguments: [age])
        case 5: return Case(label: "score >= \(score)", predicate: #Predicate { $0.score >= score }, format: "score >= %@", arguments: [score])
        case 6: return Case(label: "active == \(b)", predicate: #Predicate { $0.active == b }, format: "active == %@", arguments: [b])
        case 7: return Case(label: "!active", predicate: #Predicate { !$0.active }, format: "NOT active == YES", arguments: [])
        case 8: return Case(label: "name contains \(f)", predicate: #Predicate { $0.name.contains(f) }, format: "name CONTAINS %@", arguments: [f])
        case 9: return Case(label: "name starts with \(f)", predicate: #Predicate { $0.name.starts(with: f) }, format: "name BEGINSWITH %@", arguments: [f])
        case 10: return Case(label: "nickname == nil", predicate: #Predicate { $0.nickname == nil }, format: "nickname == nil", arguments: [])
        case 11: return Case(label: "nickname != nil", predicate: #Predicate { $0.nickname != nil }, format: "nickname != nil", arguments: [])
        case 12: return Case(label: "nickname == \(n)", predicate: #Predicate { $0.nickname == n }, format: "nickname == %@", arguments: [n])
        case 13:
            return Case(label: "(nickname ?? \(f)) == \(n)", predicate: #Predicate { ($0.nickname ?? f) == n },
                        format: f == n ? "nickname == %@ OR nickname == nil" : "nickname == %@", arguments: [n])
        case 14:
            return Case(label: "if let nickname contains \(f)", predicate: #Predicate { if let nick = $0.nickname { nick.contains(f) } else { false } },
                        format: "nickname != nil AND nickname CONTAINS %@", arguments: [f])
        case 15: return Case(label: "name in \(list)", predicate: #Predicate { list.contains($0.name) }, format: "name IN %@", arguments: [list])
        case 16:
            let (low, high) = (min(age, age2), max(age, age2))
            return Case(label: "age in \(low)...\(high) && active", predicate: #Predicate { $0.age >= low && $0.age <= high && $0.active },
                        format: "age >= %@ AND age <= %@ AND active == YES", arguments: [low, high])
        case 17:
            return Case(label: "age < \(age) || name == \(n)", predicate: #Predicate { $0.age < age || $0.name == n },
                        format: "age < %@ OR name == %@", arguments: [age, n])
        case 18:
            return Case(label: "!(score < \(score) && active)", predicate: #Predicate { !($0.score < score && $0.active) },
                        format: "NOT (score < %@ AND active == YES)", arguments: [score])
        case 19: return Case(label: "born > \(born)", predicate: #Predicate { $0.born > born }, format: "born > %@", arguments: [born])
        case 20:
            return Case(label: "team?.name == \(team)", predicate: #Predicate { $0.team?.name == team }, format: "team.name == %@", arguments: [team])
        case 21: return Case(label: "team == nil", predicate: #Predicate { $0.team == nil }, format: "team == nil", arguments: [])
        case 22:
            return Case(label: "team?.name starts \(f)", predicate: #Predicate { $0.team?.name.starts(with: f) ?? false },
                        format: "team != nil AND team.name BEGINSWITH %@", arguments: [f])
        default:
            return Case(label: "name starts \(f) && nickname != nil", predicate: #Predicate { $0.name.starts(with: f) && $0.nickname != nil },
                        format: "name BEGINSWITH %@ AND nickname != nil", arguments: [f])
        }
    }

    /// A random sort, typed and untyped.
    static func randomSort(_ rng: inout SplitMix64) -> ([SortDescriptor<Person>], [SortKey]) {
        switch rng.next() % 4 {
        case 0: return ([SortDescriptor(\.name, comparator: .lexical)], [SortKey("name")])
        case 1: return ([SortDescriptor(\.age, order: .reverse), SortDescriptor(\.name, comparator: .lexical)], [SortKey("age", ascending: false), SortKey("name")])
        case 2: return ([SortDescriptor(\.score), SortDescriptor(\.born, order: .reverse)], [SortKey("score"), SortKey("born", ascending: false)])
        default: return ([], [])
        }
    }

    @Test func typedAndStringPredicatesAgree() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["STRATA_SEED"] ?? "") ?? UInt64.random(in: 0 ... .max)
        print("DifferentialPredicateTests seed \(seed) (replay with STRATA_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let typed = try TypedStore(Person.self, Team.self)
        let context = typed.context()
        try context.performAndWait {
            let teams = (0..<6).map { Team(name: "team\($0)") }
            for index in 0..<300 {
                let person = Person(name: Self.names[Int(rng.next() % UInt64(Self.names.count))], age: Int(rng.next() % 120),
                                    score: Double(rng.next() % 1000) / 10, active: rng.next() % 2 == 0,
                                    nickname: rng.next() % 3 == 0 ? nil : Self.names[Int(rng.next() % UInt64(Self.names.count))],
                                    born: Date(timeIntervalSince1970: Double(rng.next() % 1_000_000)))
                if index % 7 != 0 { person.team = teams[Int(rng.next() % 5)] } // team5 stays empty
                context.insert(person)
            }
            try context.save()
            var compared = 0
            for _ in 0..<400 {
                let testCase = Self.randomCase(&rng)
                let (sortBy, sortKeys) = Self.randomSort(&rng)
                let models = try context.fetch(FetchDescriptor<Person>(predicate: testCase.predicate, sortBy: sortBy))
                let typedIDs = models.map { $0.persistentModelID! }
                // Swift's own answer: the predicate evaluated on every object.
                let all = try context.fetch(FetchDescriptor<Person>(sortBy: sortBy))
                let swiftIDs = try all.filter { try testCase.predicate.evaluate($0) }.map { $0.persistentModelID! }
                #expect(typedIDs == swiftIDs, "seed \(seed): \(testCase.label)")
                let request = FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: testCase.format, arguments: testCase.arguments), sortKeys: sortKeys)
                let untypedIDs = try context.fetchObjectIDs(request)
                #expect(typedIDs == untypedIDs, "seed \(seed): \(testCase.label)")
                compared += 1
            }
            #expect(compared > 300)
        }
    }
}
