import Foundation
@testable import Strata

/// The fixed data set of the predicate tests: twelve people, three teams, a dozen pets.
enum PredicateFixtures {
    static let schema = Schema(entities: [
        Entity(name: "Person", attributes: [
            Attribute(name: "name", type: .string),
            Attribute(name: "age", type: .int64),
            Attribute(name: "score", type: .double),
            Attribute(name: "nickname", type: .string, isOptional: true),
            Attribute(name: "active", type: .bool),
            Attribute(name: "birthday", type: .date, isOptional: true),
            Attribute(name: "id", type: .uuid),
            Attribute(name: "photo", type: .binary, isOptional: true),
            Attribute(name: "size", type: .int16),
        ], relationships: [
            Relationship(name: "team", destination: "Team", inverse: "members"),
            Relationship(name: "pets", destination: "Pet", inverse: "owner", isToMany: true),
        ]),
        Entity(name: "Team", attributes: [
            Attribute(name: "title", type: .string),
            Attribute(name: "rank", type: .int16),
        ], relationships: [
            Relationship(name: "members", destination: "Person", inverse: "team", isToMany: true),
        ]),
        Entity(name: "Pet", attributes: [
            Attribute(name: "name", type: .string),
            Attribute(name: "age", type: .int32),
            Attribute(name: "weight", type: .double, isOptional: true),
        ], relationships: [
            Relationship(name: "owner", destination: "Person", inverse: "pets", isOptional: false),
        ]),
    ])

    struct Team: PredicateSubject {
        var title: String
        var rank: Int64
        func value(forKey key: String) -> AttributeValue {
            switch key {
            case "title": return .string(title)
            case "rank": return .int(rank)
            default: return .null
            }
        }
        func toOne(forKey key: String) -> (any PredicateSubject)? { nil }
        func toMany(forKey key: String) -> [any PredicateSubject] { [] }
    }

    struct Pet: PredicateSubject {
        var name: String
        var age: Int64
        var weight: Double?
        func value(forKey key: String) -> AttributeValue {
            switch key {
            case "name": return .string(name)
            case "age": return .int(age)
            case "weight": return weight.map(AttributeValue.double) ?? .null
            default: return .null
            }
        }
        func toOne(forKey key: String) -> (any PredicateSubject)? { nil }
        func toMany(forKey key: String) -> [any PredicateSubject] { [] }
    }

    struct Person: PredicateSubject {
        var name: String
        var age: Int64
        var score: Double
        var nickname: String?
        var active: Bool
        var birthday: Date?
        var id: UUID
        var photo: Data?
        var size: Int64 = 1
        var team: Team?
        var pets: [Pet]

        func value(forKey key: String) -> AttributeValue {
            switch key {
            case "name": return .string(name)
            case "age": return .int(age)
            case "score": return .double(score)
            case "nickname": return nickname.map(AttributeValue.string) ?? .null
            case "active": return .bool(active)
            case "birthday": return birthday.map(AttributeValue.date) ?? .null
            case "id": return .uuid(id)
            case "photo": return photo.map(AttributeValue.binary) ?? .null
            case "size": return .int(size)
            default: return .null
            }
        }
        func toOne(forKey key: String) -> (any PredicateSubject)? { key == "team" ? team : nil }
        func toMany(forKey key: String) -> [any PredicateSubject] { key == "pets" ? pets : [] }
    }

    static let red = Team(title: "Red", rank: 1)
    static let blue = Team(title: "Blue", rank: 2)
    static let green = Team(title: "Green", rank: 3)

    static func uuid(_ n: Int) -> UUID {
        UUID(uuidString: "00000000-0000-0000-0000-\(String(format: "%012d", n))")!
    }

    static func day(_ n: Double) -> Date { Date(timeIntervalSinceReferenceDate: n * 86_400) }

    static let people: [Person] = [
        Person(name: "Ada", age: 36, score: 91.5, nickname: "addy", active: true, birthday: day(100),
               id: uuid(0), photo: Data([1, 2, 3]), team: red,
               pets: [Pet(name: "Rex", age: 3, weight: 10.5), Pet(name: "Tom", age: 5, weight: nil)]),
        Person(name: "Bob", age: 150, score: 70.0, nickname: nil, active: false, birthday: day(-50),
               id: uuid(1), photo: nil, team: blue, pets: [Pet(name: "Rex", age: 12, weight: 30.0)]),
        Person(name: "Chloé", age: 120, score: 88.25, nickname: "Clo", active: true, birthday: nil,
               id: uuid(2), photo: Data(), team: red, pets: []),
        Person(name: "Dmitri", age: 200, score: 55.0, nickname: nil, active: true, birthday: day(365),
               id: uuid(3), photo: nil, team: nil,
               pets: [Pet(name: "Fifi", age: 1, weight: 2.0), Pet(name: "Max", age: 7, weight: 25.0),
                      Pet(name: "Bella", age: 2, weight: nil)]),
        Person(name: "Élodie", age: 99, score: 100.0, nickname: "Lo", active: false, birthday: day(0),
               id: uuid(4), photo: nil, team: blue, pets: [Pet(name: "Tom", age: 4, weight: 4.5)]),
        Person(name: "Frank", age: 201, score: 0.0, nickname: "frankie", active: true, birthday: nil,
               id: uuid(5), photo: nil, team: green, pets: []),
        Person(name: "Greta", age: 100, score: 42.0, nickname: nil, active: false, birthday: day(1000),
               id: uuid(6), photo: nil, team: green, pets: [Pet(name: "Max", age: 9, weight: 40.0)]),
        Person(name: "hugo", age: 18, score: 18.5, nickname: "Hugo", active: true, birthday: day(-1),
               id: uuid(7), photo: nil, team: nil, pets: [Pet(name: "Rex", age: 1, weight: 5.0)]),
        Person(name: "Ingrid", age: 45, score: 77.7, nickname: "", active: false, birthday: nil,
               id: uuid(8), photo: nil, team: red,
               pets: [Pet(name: "Bella", age: 6, weight: 8.0), Pet(name: "Luna", age: 3, weight: 3.3)]),
        Person(name: "José", age: 64, score: 64.0, nickname: "Pepe", active: true, birthday: day(200),
               id: uuid(9), photo: nil, team: blue, pets: []),
        Person(name: "Kai", age: 0, score: -5.5, nickname: nil, active: false, birthday: nil,
               id: uuid(10), photo: nil, team: nil, pets: [Pet(name: "Zed", age: 15, weight: 12.0)]),
        Person(name: "Zoë", age: 30, score: 99.9, nickname: "Zo", active: true, birthday: day(50),
               id: uuid(11), photo: nil, team: green, pets: [Pet(name: "Luna", age: 2, weight: 2.5)]),
    ]

    static var person: Entity { schema.entity(named: "Person")! }

    /// The names of the people `format` (with `arguments`) matches, in data set order.
    static func names(_ format: String, _ arguments: [any PredicateArgumentConvertible] = [],
                      variables: [String: any PredicateArgumentConvertible]? = nil) throws -> [String] {
        let bound = try ObjectPredicate(format: format, arguments: arguments, variables: variables)
            .bound(to: person, in: schema)
        return people.filter { bound.evaluate(with: $0) }.map(\.name)
    }

    /// The error `format` raises when parsed and bound.
    static func error(_ format: String, _ arguments: [any PredicateArgumentConvertible] = [],
                      variables: [String: any PredicateArgumentConvertible]? = nil) -> StrataError? {
        do {
            _ = try ObjectPredicate(format: format, arguments: arguments, variables: variables)
                .bound(to: person, in: schema)
            return nil
        } catch {
            return error
        }
    }
}
