import Foundation
import PropertyBased
import Testing
@testable import Strata

/// Schemas shared by the model tests.
enum ModelFixtures {
    /// The to-do schema of the builder example, as plain values.
    static let todoPlain = Schema(entities: [
        Entity(
            name: "TodoList",
            attributes: [
                Attribute(name: "title", type: .string, validationRules: [.length(min: 1, max: 200)]),
            ],
            relationships: [
                Relationship(name: "items", destination: "TodoItem", inverse: "list", isToMany: true,
                             deleteRule: .cascade),
            ]),
        Entity(
            name: "TodoItem",
            attributes: [
                Attribute(name: "name", type: .string),
                Attribute(name: "createdAt", type: .date),
                Attribute(name: "done", type: .bool, defaultValue: false),
                Attribute(name: "priority", type: .int16, isOptional: true,
                          validationRules: [.range(min: .int(0), max: .int(10))]),
            ],
            relationships: [
                Relationship(name: "list", destination: "TodoList", inverse: "items"),
            ]),
    ])
}

/// Random valid schemas, for round-trip properties.
enum SchemaGen {
    /// A generator of valid schemas with every attribute type, defaults, data rules and
    /// paired relationships.
    static let schema = Generator<Schema, Shrink.None<Schema>> { rng in
        var entities: [Entity] = []
        let entityCount = Int.random(in: 1...5, using: &rng)
        for e in 0..<entityCount {
            var attributes: [Attribute] = []
            for a in 0..<Int.random(in: 0...6, using: &rng) {
                attributes.append(randomAttribute(name: "a\(a)", using: &rng))
            }
            entities.append(Entity(name: "E\(e)_\(Int.random(in: 0...99, using: &rng))", attributes: attributes))
        }
        // Pair relationships so that every one has a matching inverse.
        for r in 0..<Int.random(in: 0...4, using: &rng) {
            let i = Int.random(in: 0..<entities.count, using: &rng)
            let j = Int.random(in: 0..<entities.count, using: &rng)
            let forward = "r\(r)f", backward = "r\(r)b"
            let forwardToMany = Bool.random(using: &rng)
            entities[i].relationships.append(Relationship(
                name: forward, destination: entities[j].name, inverse: backward,
                isToMany: forwardToMany, isOptional: Bool.random(using: &rng),
                deleteRule: DeleteRule.allCases.randomElement(using: &rng) ?? .nullify))
            // Never both to-many: a schema refuses a many-to-many pair. The draw is made
            // either way, so every seed keeps the rest of its schema.
            let backwardToMany = Bool.random(using: &rng) && !forwardToMany
            entities[j].relationships.append(Relationship(
                name: backward, destination: entities[i].name, inverse: forward,
                isToMany: backwardToMany, isOptional: Bool.random(using: &rng),
                deleteRule: DeleteRule.allCases.randomElement(using: &rng) ?? .nullify))
        }
        return Schema(entities: entities)
    }

    private static func randomAttribute(name: String, using rng: inout some RandomNumberGenerator) -> Attribute {
        let type = AttributeType.allCases.randomElement(using: &rng) ?? .string
        var attribute = Attribute(name: name, type: type, isOptional: Bool.random(using: &rng))
        let withDefault = Bool.random(using: &rng)
        switch type {
        case .bool:
            if withDefault { attribute.defaultValue = .bool(Bool.random(using: &rng)) }
        case .int16, .int32, .int64:
            let range = type.integerRange ?? 0...0
            let low = Int64.random(in: range, using: &rng)
            let high = Int64.random(in: low...range.upperBound, using: &rng)
            if Bool.random(using: &rng) { attribute.validationRules.append(.range(min: .int(low), max: .int(high))) }
            if withDefault { attribute.defaultValue = .int(Int64.random(in: low...high, using: &rng)) }
        case .double:
            let low = Double.random(in: -1e9...1e9, using: &rng)
            if Bool.random(using: &rng) { attribute.validationRules.append(.range(min: .double(low), max: nil)) }
            if withDefault { attribute.defaultValue = .double(low + Double.random(in: 0...1e-3, using: &rng)) }
        case .string:
            if Bool.random(using: &rng) { attribute.validationRules.append(.length(min: 0, max: 40)) }
            if Bool.random(using: &rng) { attribute.validationRules.append(.pattern("[a-zé\"\\\\\\n ]*")) }
            if withDefault {
                let alphabet = Array("abcé \"\\\n")
                let count = Int.random(in: 0...10, using: &rng)
                attribute.defaultValue = .string(String((0..<count).map { _ in alphabet.randomElement(using: &rng) ?? "a" }))
            }
        case .date:
            // Whole seconds (written as ISO 8601) and fractional ones (written as numbers).
            // Fractions are binary (.5, .25, .125) so that seconds since 1970 and Foundation's
            // seconds since 2001 convert exactly; see the JSON notes on fractional dates.
            let seconds = Double(Int64.random(in: -5_000_000_000...5_000_000_000, using: &rng))
            let fractions: [Double] = [0, 0.5, 0.25, 0.125]
            let fraction = fractions.randomElement(using: &rng) ?? 0
            let date = Date(timeIntervalSince1970: seconds + fraction)
            if Bool.random(using: &rng) { attribute.validationRules.append(.range(min: nil, max: .date(date))) }
            if withDefault { attribute.defaultValue = .date(date) }
        case .uuid:
            if withDefault { attribute.defaultValue = .uuid(UUID()) }
        case .binary:
            if Bool.random(using: &rng) { attribute.validationRules.append(.length(min: nil, max: 64)) }
            if withDefault {
                attribute.defaultValue = .binary(Data((0..<Int.random(in: 0...20, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                }))
            }
        }
        return attribute
    }
}

/// Expects `body` to throw a `StrataError` with `code`.
func expectModelError<T>(_ code: StrataError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                         _ body: () throws -> T) {
    let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}
