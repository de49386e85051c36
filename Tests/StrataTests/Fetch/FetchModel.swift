import Foundation
@testable import Strata

/// A plain-value copy of the Person/Team/Pet graph: what the store (or a context with its
/// unsaved changes) should hold. The fetch tests filter it with the reference evaluator
/// (``BoundPredicate/evaluate(with:)`` over ``FetchModel/Subject``) and sort it naively,
/// then compare with what the store answers.
struct FetchModel: Sendable {
    struct Team: Sendable { var title: String; var rank: Int64? }
    struct Pet: Sendable { var name: String; var age: Int64?; var owner: Int64? }
    struct Person: Sendable { var values: [String: AttributeValue]; var team: Int64? }

    var teams: [Int64: Team] = [:]
    var pets: [Int64: Pet] = [:]
    var people: [Int64: Person] = [:]

    /// The person with primary key `key`, seen as a predicate subject.
    func subject(person key: Int64) -> Subject { Subject(model: self, kind: .person, key: key) }

    /// The value of `key` for person `person`: an attribute, or `team` as `.int(pk)`.
    func value(person: Int64, key: String) -> AttributeValue {
        guard let p = people[person] else { return .null }
        if key == "team" { return p.team.map { .int($0) } ?? .null }
        return p.values[key] ?? .null
    }

    /// A model object as a ``PredicateSubject``; relationships are resolved on demand.
    struct Subject: PredicateSubject {
        enum Kind { case person, team, pet }
        let model: FetchModel
        let kind: Kind
        let key: Int64

        func value(forKey name: String) -> AttributeValue {
            switch kind {
            case .person: return model.people[key]?.values[name] ?? .null
            case .team:
                guard let t = model.teams[key] else { return .null }
                return name == "title" ? .string(t.title) : name == "rank" ? (t.rank.map { .int($0) } ?? .null) : .null
            case .pet:
                guard let p = model.pets[key] else { return .null }
                return name == "name" ? .string(p.name) : name == "age" ? (p.age.map { .int($0) } ?? .null) : .null
            }
        }

        func toOne(forKey name: String) -> (any PredicateSubject)? {
            switch (kind, name) {
            case (.person, "team"):
                guard let t = model.people[key]?.team, model.teams[t] != nil else { return nil }
                return Subject(model: model, kind: .team, key: t)
            case (.pet, "owner"):
                guard let o = model.pets[key]?.owner, model.people[o] != nil else { return nil }
                return Subject(model: model, kind: .person, key: o)
            default: return nil
            }
        }

        func toMany(forKey name: String) -> [any PredicateSubject] {
            switch (kind, name) {
            case (.person, "pets"):
                return model.pets.filter { $0.value.owner == key }.keys.sorted().map { Subject(model: model, kind: .pet, key: $0) }
            case (.team, "members"):
                return model.people.filter { $0.value.team == key }.keys.sorted().map { Subject(model: model, kind: .person, key: $0) }
            default: return []
            }
        }
    }
}

/// The naive reference of a fetch: filter every person with the reference evaluator, sort
/// with a plain comparator (nil first, ties broken by the next key and then the primary
/// key), then apply offset and limit.
enum FetchReference {
    /// The primary keys `request` should return from `model`.
    static func keys(_ request: FetchRequest, in model: FetchModel) throws -> [Int64] {
        let bound = try request.predicate?.bound(to: request.entityName, in: FetchFixtures.schema)
        let matching = model.people.keys.sorted().filter { bound?.evaluate(with: model.subject(person: $0)) ?? true }
        let sorted = matching.sorted { a, b in
            for key in request.sortKeys {
                let order = compare(model.value(person: a, key: key.key), model.value(person: b, key: key.key),
                                    caseInsensitive: key.caseInsensitive)
                if order != .orderedSame {
                    return key.ascending ? order == .orderedAscending : order == .orderedDescending
                }
            }
            return a < b
        }
        let start = min(request.fetchOffset, sorted.count)
        let end = request.fetchLimit > 0 ? min(sorted.count, start + request.fetchLimit) : sorted.count
        return Array(sorted[start..<end])
    }

    /// Order of two values of one attribute: nil first, then by value (strings ASCII-folded
    /// when `caseInsensitive`; the fixtures use ASCII letters only).
    static func compare(_ a: AttributeValue, _ b: AttributeValue, caseInsensitive: Bool) -> ComparisonResult {
        func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
            x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        }
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let x), .string(let y)): return caseInsensitive ? order(x.lowercased(), y.lowercased()) : order(x, y)
        case (.int(let x), .int(let y)): return order(x, y)
        case (.double(let x), .double(let y)): return order(x, y)
        case (.date(let x), .date(let y)): return order(x, y)
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        default: preconditionFailure("unexpected values \(a), \(b)")
        }
    }
}
