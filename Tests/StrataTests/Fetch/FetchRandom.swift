import Foundation
import StrataTestSupport
@testable import Strata

/// Seeded random data sets and requests for the fetch property tests. Every function takes
/// a ``SplitMix64`` so a printed seed replays the exact case.
enum FetchRandom {
    static func pick<T>(_ items: [T], _ rng: inout SplitMix64) -> T { items[Int.random(in: 0..<items.count, using: &rng)] }
    static func chance(_ p: Double, _ rng: inout SplitMix64) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    /// Names with duplicates and case variants (ASCII letters only, see ``FetchReference``).
    static let names = ["ann", "Ann", "ANN", "bob", "Bob", "cy", "dee", "Eve", "al", "zed", "Al"]
    static let teamTitles = ["Red", "red", "Blue", "Green"]
    static let petNames = ["Rex", "rex", "Tom", "Fifi"]
    /// Integers where doubles lose exactness, and the extremes.
    static let ageSpecials: [Int64] = [0, -1, 100, 200, 9_007_199_254_740_993, -9_007_199_254_740_993, .max, .min]
    static let scoreSpecials: [Double] = [0, -0.0, 0.5, -2.5, 100, 200, 1e300, -1e300, .infinity, -.infinity, 9_007_199_254_740_992]

    /// Random attribute values of person number `i`. `clustered` makes age, score and born
    /// grow with `i`, so 1,024-row chunks have disjoint ranges and chunk skipping kicks in.
    static func personValues(_ i: Int, clustered: Bool, _ rng: inout SplitMix64) -> [String: AttributeValue] {
        var v: [String: AttributeValue] = ["name": .string(pick(names, &rng))]
        v["nickname"] = chance(0.4, &rng) ? .null : .string(pick(names, &rng))
        if chance(0.15, &rng) { v["age"] = .null }
        else if chance(0.03, &rng) { v["age"] = .int(pick(ageSpecials, &rng)) }
        else { v["age"] = .int(clustered ? Int64(i / 8) + Int64.random(in: -3...3, using: &rng) : Int64.random(in: -5...300, using: &rng)) }
        if chance(0.15, &rng) { v["score"] = .null }
        else if chance(0.05, &rng) { v["score"] = .double(pick(scoreSpecials, &rng)) }
        else { v["score"] = .double(clustered ? Double(i) / 4 + Double(Int.random(in: -4...4, using: &rng)) / 2
                                              : Double(Int.random(in: -40...600, using: &rng)) / 2) }
        v["born"] = chance(0.2, &rng) ? .null
            : .date(FetchFixtures.day(clustered ? Double(i / 10) : Double(Int.random(in: -200...200, using: &rng)) / 2))
        v["active"] = chance(0.2, &rng) ? .null : .bool(Bool.random(using: &rng))
        v["size"] = .int(Int64.random(in: -3...3, using: &rng))
        return v
    }

    /// Inserts a random graph (4 teams, `people` people, `pets` pets) into `context`, saves
    /// it, and returns the matching model. Call on the context's queue.
    static func populate(_ context: ObjectContext, people: Int, pets: Int, clustered: Bool,
                         _ rng: inout SplitMix64) throws -> FetchModel {
        var model = FetchModel()
        var teams: [ManagedObject] = []
        for title in teamTitles {
            let team = try context.insert("Team")
            let rank: Int64? = chance(0.25, &rng) ? nil : Int64.random(in: 1...5, using: &rng)
            try team.setValues(["title": .string(title), "rank": rank.map { .int($0) } ?? .null])
            model.teams[team.objectID.primaryKey] = .init(title: title, rank: rank)
            teams.append(team)
        }
        var people_: [ManagedObject] = []
        for i in 0..<people {
            let values = personValues(i, clustered: clustered, &rng)
            let person = try FetchFixtures.person(context, values)
            var team: Int64?
            if !chance(0.25, &rng) {
                let t = pick(teams, &rng)
                try person.setObject(t, forKey: "team")
                team = t.objectID.primaryKey
            }
            model.people[person.objectID.primaryKey] = .init(values: values, team: team)
            people_.append(person)
        }
        for _ in 0..<(people == 0 ? 0 : pets) {
            let pet = try context.insert("Pet")
            let name = pick(petNames, &rng)
            let age: Int64? = chance(0.2, &rng) ? nil : Int64.random(in: 0...12, using: &rng)
            try pet.setValues(["name": .string(name), "age": age.map { .int($0) } ?? .null])
            let owner = pick(people_, &rng)
            try pet.setObject(owner, forKey: "owner")
            model.pets[pet.objectID.primaryKey] = .init(name: name, age: age, owner: owner.objectID.primaryKey)
        }
        try context.save()
        return model
    }

    // MARK: Predicates

    /// A number constant near the data: an integer, a half, an integral double, or a special.
    static func number(_ rng: inout SplitMix64, scale: Int64) -> AttributeValue {
        switch Int.random(in: 0...9, using: &rng) {
        case 0...3: return .int(Int64.random(in: -10...scale, using: &rng))
        case 4, 5: return .double(Double(Int64.random(in: -10...scale, using: &rng)) + 0.5)
        case 6, 7: return .double(Double(Int64.random(in: -10...scale, using: &rng)))
        case 8: return .int(pick(ageSpecials, &rng))
        default: return .double(pick(scoreSpecials, &rng))
        }
    }

    static func date(_ rng: inout SplitMix64, scale: Int64) -> AttributeValue {
        .date(FetchFixtures.day(Double(Int64.random(in: -20...max(20, scale / 8), using: &rng)) + (chance(0.3, &rng) ? 0.5 : 0)))
    }

    static let comparisons: [ObjectPredicate.Operator] = [.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo]

    private static func cmp(_ key: String, _ op: ObjectPredicate.Operator, _ value: AttributeValue,
                            modifier: ObjectPredicate.Modifier = .direct, options: ObjectPredicate.Options = []) -> ObjectPredicate {
        .comparison(.init(.keyPath(key.split(separator: ".").map(String.init)), op, .constant(value), modifier: modifier, options: options))
    }

    /// One random comparison on Person that binds. Weighted towards what the column filter
    /// compiles (numeric, date and bool attributes against constants).
    static func atom(_ rng: inout SplitMix64, scale: Int64) -> ObjectPredicate {
        let numeric = pick(["age", "score", "size"], &rng)
        switch Int.random(in: 0...15, using: &rng) {
        case 0...3: return cmp(numeric, pick(comparisons, &rng), number(&rng, scale: scale))
        case 4: // constant on the left
            return .comparison(.init(.constant(number(&rng, scale: scale)), pick(comparisons, &rng), .keyPath([numeric])))
        case 5:
            return .comparison(.init(.keyPath([numeric]), .between,
                                     .list([.constant(number(&rng, scale: scale)), .constant(number(&rng, scale: scale))])))
        case 6:
            var items = (0..<Int.random(in: 0...4, using: &rng)).map { _ in ObjectPredicate.Expression.constant(number(&rng, scale: scale)) }
            if chance(0.3, &rng) { items.append(.constant(.null)) }
            return .comparison(.init(.keyPath([numeric]), .in, .list(items)))
        case 7:
            return cmp(pick(["age", "score", "born", "active", "nickname", "team"], &rng), chance(0.5, &rng) ? .equalTo : .notEqualTo, .null)
        case 8:
            if chance(0.3, &rng) {
                return .comparison(.init(.keyPath(["born"]), .between, .list([.constant(date(&rng, scale: scale)), .constant(date(&rng, scale: scale))])))
            }
            return cmp("born", pick(comparisons, &rng), date(&rng, scale: scale))
        case 9:
            if chance(0.25, &rng) {
                var items: [ObjectPredicate.Expression] = [.constant(.bool(Bool.random(using: &rng)))]
                if chance(0.5, &rng) { items.append(.constant(.null)) }
                return .comparison(.init(.keyPath(["active"]), .in, .list(items)))
            }
            return cmp("active", chance(0.5, &rng) ? .equalTo : .notEqualTo, .bool(Bool.random(using: &rng)))
        case 10:
            let op = pick([ObjectPredicate.Operator.equalTo, .notEqualTo, .beginsWith, .lessThan, .like, .contains], &rng)
            let text = op == .like ? pick(["a*", "?ob", "*E*"], &rng) : pick(names + ["a", "B", ""], &rng)
            return cmp(pick(["name", "nickname"], &rng), op, .string(text), options: chance(0.5, &rng) ? [.caseInsensitive] : [])
        case 11:
            switch Int.random(in: 0...2, using: &rng) {
            case 0: return cmp("team.title", .equalTo, .string(pick(teamTitles, &rng)), options: chance(0.5, &rng) ? [.caseInsensitive] : [])
            case 1: return cmp("team.rank", pick(comparisons, &rng), .int(Int64.random(in: 0...6, using: &rng)))
            default: return cmp("team", chance(0.5, &rng) ? .equalTo : .notEqualTo, .null)
            }
        case 12:
            let modifier = pick([ObjectPredicate.Modifier.any, .all, .none], &rng)
            if chance(0.5, &rng) { return cmp("pets.age", pick(comparisons, &rng), .int(Int64.random(in: 0...12, using: &rng)), modifier: modifier) }
            return cmp("pets.name", .equalTo, .string(pick(petNames, &rng)), modifier: modifier, options: chance(0.5, &rng) ? [.caseInsensitive] : [])
        case 13:
            let function = pick(ObjectPredicate.Aggregate.allCases, &rng)
            let value: AttributeValue = function == .avg ? .double(Double(Int.random(in: 0...24, using: &rng)) / 2)
                : .int(Int64.random(in: 0...(function == .count ? 3 : 14), using: &rng))
            return .comparison(.init(.aggregate(function, collection: ["pets"], key: function == .count ? [] : ["age"]),
                                     pick(comparisons, &rng), .constant(value)))
        case 14:
            return chance(0.5, &rng) ? .truePredicate : .falsePredicate
        default:
            return cmp("age", pick(comparisons, &rng), .int(Int64.random(in: -10...scale, using: &rng)))
        }
    }

    /// A random predicate tree of atoms joined by AND, OR and NOT.
    static func predicate(_ rng: inout SplitMix64, depth: Int, scale: Int64) -> ObjectPredicate {
        switch Int.random(in: 0...(depth > 0 ? 6 : 0), using: &rng) {
        case 0, 1, 2: return atom(&rng, scale: scale)
        case 3: return .not(predicate(&rng, depth: depth - 1, scale: scale))
        case 4: return .or(predicate(&rng, depth: depth - 1, scale: scale), predicate(&rng, depth: depth - 1, scale: scale))
        default: return .and(predicate(&rng, depth: depth - 1, scale: scale), predicate(&rng, depth: depth - 1, scale: scale))
        }
    }

    /// A random request on Person: predicate (or none), 0–3 sort keys, offset and limit.
    static func request(_ rng: inout SplitMix64, scale: Int64, rows: Int) -> FetchRequest {
        var request = FetchRequest(entityName: "Person")
        if !chance(0.05, &rng) { request.predicate = predicate(&rng, depth: 3, scale: scale) }
        let sortable = ["name", "nickname", "age", "score", "born", "active", "size", "team"]
        request.sortKeys = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            SortKey(pick(sortable, &rng), ascending: Bool.random(using: &rng), caseInsensitive: chance(0.4, &rng))
        }
        if chance(0.3, &rng) { request.fetchOffset = Int.random(in: 0...max(1, rows / 2), using: &rng) }
        if chance(0.3, &rng) { request.fetchLimit = Int.random(in: 0...max(1, rows / 2), using: &rng) }
        return request
    }

    /// Random unsaved changes in `context`, mirrored in `model`: inserts, attribute updates
    /// (nil included), team changes and deletes of people; and of related objects: teams
    /// renamed or deleted, pets moved to another owner, aged or deleted. Call on the
    /// context's queue.
    static func mutate(_ context: ObjectContext, _ model: inout FetchModel, steps: Int, _ rng: inout SplitMix64) throws {
        let teamKeys = model.teams.keys.sorted()
        let store = context.store
        func object(_ key: Int64, _ entity: String) -> ManagedObject {
            context.object(with: ObjectID(storeID: store.storeID, entityName: entity, primaryKey: key))
        }
        for step in 0..<steps {
            let keys = model.people.keys.sorted()
            if chance(0.25, &rng) {
                try mutateRelated(context, &model, people: keys, &rng)
                continue
            }
            switch Int.random(in: 0...9, using: &rng) {
            case 0...2:
                let values = personValues(step * 37, clustered: false, &rng)
                let person = try FetchFixtures.person(context, values)
                var team: Int64?
                if chance(0.5, &rng), let t = teamKeys.randomElement(using: &rng) {
                    try person.setObject(object(t, "Team"), forKey: "team")
                    team = t
                }
                model.people[person.objectID.primaryKey] = .init(values: values, team: team)
            case 3...6 where !keys.isEmpty:
                let key = pick(keys, &rng)
                let fresh = personValues(Int.random(in: 0...3000, using: &rng), clustered: chance(0.5, &rng), &rng)
                let attribute = pick(["name", "nickname", "age", "score", "born", "active", "size"], &rng)
                try object(key, "Person").setValue(fresh[attribute]!, forKey: attribute)
                model.people[key]!.values[attribute] = fresh[attribute]!
            case 7 where !keys.isEmpty:
                let key = pick(keys, &rng)
                let t: Int64? = chance(0.3, &rng) ? nil : teamKeys.randomElement(using: &rng)
                try object(key, "Person").setObject(t.map { object($0, "Team") }, forKey: "team")
                model.people[key]!.team = t
            case 8 where !keys.isEmpty, 9 where !keys.isEmpty:
                let key = pick(keys, &rng)
                context.delete(object(key, "Person"))
                model.people[key] = nil
            default:
                break
            }
        }
    }

    /// One random unsaved change to a team or a pet, mirrored in `model`.
    private static func mutateRelated(_ context: ObjectContext, _ model: inout FetchModel, people: [Int64],
                                      _ rng: inout SplitMix64) throws {
        func object(_ key: Int64, _ entity: String) -> ManagedObject {
            context.object(with: ObjectID(storeID: context.store.storeID, entityName: entity, primaryKey: key))
        }
        let teams = model.teams.keys.sorted(), pets = model.pets.keys.sorted()
        switch Int.random(in: 0...5, using: &rng) {
        case 0 where !teams.isEmpty:
            let key = pick(teams, &rng), title = pick(teamTitles + ["Gold"], &rng)
            try object(key, "Team").setValue(.string(title), forKey: "title")
            model.teams[key]!.title = title
        case 1 where teams.count > 2:
            let key = pick(teams, &rng)
            context.delete(object(key, "Team"))
            model.teams[key] = nil
        case 2 where !pets.isEmpty && !people.isEmpty, 3 where !pets.isEmpty && !people.isEmpty:
            let key = pick(pets, &rng), owner = pick(people, &rng)
            try object(key, "Pet").setObject(object(owner, "Person"), forKey: "owner")
            model.pets[key]!.owner = owner
        case 4 where !pets.isEmpty:
            let key = pick(pets, &rng)
            let age: Int64? = chance(0.2, &rng) ? nil : Int64.random(in: 0...12, using: &rng)
            try object(key, "Pet").setValue(age.map { .int($0) } ?? .null, forKey: "age")
            model.pets[key]!.age = age
        case 5 where !pets.isEmpty:
            let key = pick(pets, &rng)
            context.delete(object(key, "Pet"))
            model.pets[key] = nil
        default:
            break
        }
    }
}
