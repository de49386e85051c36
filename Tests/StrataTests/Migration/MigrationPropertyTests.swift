import Foundation
import PropertyBased
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Model-based: a random schema, random rows, then 1–3 random lightweight changes applied
/// at once; the migrated store (after the migrating open, a replay and a snapshot) equals
/// the same changes applied to a plain dictionary of the rows.
@Suite struct MigrationPropertyTests {
    typealias F = MigrationFixtures
    static let types: [AttributeType] = [.bool, .int16, .int32, .int64, .double, .string, .date, .uuid, .binary]

    static func value(_ type: AttributeType, _ rng: inout SplitMix64) -> AttributeValue {
        switch type {
        case .bool: return .bool(rng.next() % 2 == 0)
        case .int16: return .int(Int64(rng.next() % 600) - 300)
        case .int32: return .int(Int64(rng.next() % 200_000) - 100_000)
        case .int64: return .int(Int64(bitPattern: rng.next()) / 3)
        case .double: return .double(Double(Int64(rng.next() % 10_000) - 5_000) / 8)
        case .string: return .string(String(repeating: "é", count: Int(rng.next() % 4)) + "s\(rng.next() % 100)")
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(rng.next() % 1_000_000)))
        case .uuid: return .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(rng.next() % 256), UInt8(rng.next() % 256))))
        case .binary: return .binary(Data((0..<Int(rng.next() % 6)).map { _ in UInt8(rng.next() % 256) }))
        }
    }

    static func randomSchema(_ rng: inout SplitMix64) -> Schema {
        var entities: [Entity] = []
        for e in 0..<(1 + Int(rng.next() % 3)) {
            var attributes: [Attribute] = []
            for a in 0..<(1 + Int(rng.next() % 4)) {
                let type = types[Int(rng.next() % UInt64(types.count))]
                attributes.append(Attribute(name: "a\(a)", type: type, isOptional: rng.next() % 2 == 0,
                                            defaultValue: rng.next() % 3 == 0 ? value(type, &rng) : .null))
            }
            entities.append(Entity(name: "E\(e)", attributes: attributes))
        }
        if entities.count >= 2 {
            entities[0].relationships.append(Relationship(name: "items", destination: "E1", inverse: "owner", isToMany: true))
            entities[1].relationships.append(Relationship(name: "owner", destination: "E0", inverse: "items"))
        }
        return Schema(entities: entities)
    }

    /// Applies one random lightweight change to `schema` and to `model` alike.
    /// What earlier changes of the same migration did, by "Entity.attribute" (current names):
    /// the attributes they added (which take their final default), and those whose nils they
    /// filled (which cannot become optional again within the migration: the model cannot
    /// unfill them).
    struct Tracking {
        var added = Set<String>()
        var filled = Set<String>()

        mutating func rename(_ old: String, to new: String) {
            if added.remove(old) != nil { added.insert(new) }
            if filled.remove(old) != nil { filled.insert(new) }
        }
        mutating func renameEntity(_ old: String, to new: String) {
            func moved(_ set: Set<String>) -> Set<String> {
                Set(set.map { $0.hasPrefix("\(old).") ? new + $0.dropFirst(old.count) : $0 })
            }
            added = moved(added)
            filled = moved(filled)
        }
    }

    static func randomChange(_ schema: inout Schema, _ model: inout StoreDump, _ tracking: inout Tracking,
                             _ rng: inout SplitMix64, _ n: Int) {
        let e = Int(rng.next() % UInt64(schema.entities.count))
        let name = schema.entities[e].name
        let attributeCount = schema.entities[e].attributes.count
        let a = Int(rng.next() % UInt64(max(attributeCount, 1)))
        switch rng.next() % 10 {
        case 0: // add an attribute, optional or with a default
            let type = types[Int(rng.next() % UInt64(types.count))]
            let optional = rng.next() % 2 == 0
            let fill = optional && rng.next() % 2 == 0 ? AttributeValue.null : value(type, &rng)
            schema.entities[e].attributes.append(Attribute(name: "n\(n)", type: type, isOptional: optional, defaultValue: fill))
            model = model.mapRows(name) { $0["n\(n)"] = fill }
            tracking.added.insert("\(name).n\(n)")
        case 1 where attributeCount > 1: // remove one
            let removed = schema.entities[e].attributes.remove(at: a).name
            model = model.mapRows(name) { $0[removed] = nil }
            tracking.added.remove("\(name).\(removed)")
        case 2 where attributeCount > 0: // rename one
            let old = schema.entities[e].attributes[a].name
            schema.entities[e].attributes[a].name = "r\(n)"
            // Chained renames within one migration name the v1 attribute.
            schema.entities[e].attributes[a].originalName = schema.entities[e].attributes[a].originalName ?? old
            model = model.mapRows(name) { $0["r\(n)"] = $0.removeValue(forKey: old) }
            tracking.rename("\(name).\(old)", to: "\(name).r\(n)")
        case 3: // rename the entity (keeping relationships pointing at it)
            let new = "\(name)x\(n)"
            schema.entities[e].name = new
            schema.entities[e].originalName = schema.entities[e].originalName ?? name
            for i in schema.entities.indices {
                for r in schema.entities[i].relationships.indices where schema.entities[i].relationships[r].destination == name {
                    schema.entities[i].relationships[r].destination = new
                }
            }
            model[new] = model.removeValue(forKey: name)
            tracking.renameEntity(name, to: new)
        case 4 where attributeCount > 0: // required → optional, or optional → required with a default
            var attribute = schema.entities[e].attributes[a]
            if attribute.isOptional {
                let fill = value(attribute.type, &rng)
                attribute.isOptional = false
                attribute.defaultValue = fill
                model = model.mapRows(name) { if $0[attribute.name] == .null { $0[attribute.name] = fill } }
                tracking.filled.insert("\(name).\(attribute.name)")
            } else if !tracking.filled.contains("\(name).\(attribute.name)") {
                attribute.isOptional = true
            }
            schema.entities[e].attributes[a] = attribute
        case 5 where attributeCount > 0: // widen
            var attribute = schema.entities[e].attributes[a]
            let wider: [AttributeType: [AttributeType]] = [.int16: [.int32, .int64, .double], .int32: [.int64, .double], .int64: [.double]]
            guard let choices = wider[attribute.type] else { return }
            let target = choices[Int(rng.next() % UInt64(choices.count))]
            attribute.type = target
            if target == .double {
                if case .int(let i) = attribute.defaultValue { attribute.defaultValue = .double(Double(i)) }
                model = model.mapRows(name) { if case .int(let i)? = $0[attribute.name] { $0[attribute.name] = .double(Double(i)) } }
            }
            schema.entities[e].attributes[a] = attribute
        case 6: // add an entity
            schema.entities.append(Entity(name: "New\(n)", attributes: [Attribute(name: "x", type: .string, isOptional: true)]))
            model["New\(n)"] = [:]
        case 7 where schema.entities[e].relationships.isEmpty && schema.entities.count > 1: // remove an entity
            schema.entities.remove(at: e)
            model[name] = nil
        case 8 where attributeCount > 0: // change a default (not of one whose nils it filled)
            let attribute = schema.entities[e].attributes[a]
            guard !tracking.filled.contains("\(name).\(attribute.name)") else { return }
            schema.entities[e].attributes[a].defaultValue = attribute.isOptional ? .null : value(attribute.type, &rng)
        case 9 where !schema.entities[e].relationships.isEmpty: // rename a relationship (its inverse names the new name)
            let r = Int(rng.next() % UInt64(schema.entities[e].relationships.count))
            let relationship = schema.entities[e].relationships[r]
            schema.entities[e].relationships[r].name = "q\(n)"
            schema.entities[e].relationships[r].originalName = relationship.originalName ?? relationship.name
            if let d = schema.entities.firstIndex(where: { $0.name == relationship.destination }),
               let inverse = schema.entities[d].relationships.firstIndex(where: { $0.name == relationship.inverse }) {
                schema.entities[d].relationships[inverse].inverse = "q\(n)"
            }
            if !relationship.isToMany {
                model = model.mapRows(name) { $0["q\(n)"] = $0.removeValue(forKey: relationship.name) }
            }
        default:
            break
        }
    }

    static func run(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let v1 = try randomSchema(&rng).validated()
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: F.directory, schema: v1, options: F.options(fs))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            var owners: [ManagedObject] = []
            for (index, entity) in v1.entities.enumerated() {
                for _ in 0..<Int(rng.next() % 40) {
                    let object = try context.insert(entity.name)
                    for attribute in entity.attributes {
                        let value = attribute.isOptional && rng.next() % 3 == 0 ? .null : value(attribute.type, &rng)
                        try object.setValue(value, forKey: attribute.name)
                    }
                    if index == 0 { owners.append(object) }
                    if entity.relationship(named: "owner") != nil, !owners.isEmpty, rng.next() % 3 != 0 {
                        try object.setObject(owners[Int(rng.next() % UInt64(owners.count))], forKey: "owner")
                    }
                }
            }
            try context.save()
        }
        var model = F.dump(store)
        try store.close()
        var v2 = v1
        var tracking = Tracking()
        for n in 0..<(1 + Int(rng.next() % 3)) { randomChange(&v2, &model, &tracking, &rng, n) }
        // An attribute added by the migration holds its final default in every row.
        for entry in tracking.added {
            let parts = entry.split(separator: ".").map(String.init)
            guard let fill = v2.entity(named: parts[0])?.attribute(named: parts[1])?.defaultValue else { continue }
            model = model.mapRows(parts[0]) { $0[parts[1]] = fill }
        }
        v2 = try v2.validated()
        let migrated = try F.migrate(fs, to: v2)
        guard migrated != model else { return }
        var first = "entities \(migrated.keys.sorted()) vs \(model.keys.sorted())"
        for (entity, rows) in model where migrated[entity] != nil && migrated[entity] != rows {
            if let key = rows.keys.sorted().first(where: { migrated[entity]?[$0] != rows[$0] }) {
                first = "\(entity) row \(key): migrated \(migrated[entity]?[key].map { "\($0)" } ?? "missing"), model \(rows[key]!)"
            }
        }
        Issue.record("seed \(seed): the migrated store differs from the model; first difference: \(first); v1 \(v1.jsonString(prettyPrinted: false)); v2 \(v2.jsonString(prettyPrinted: false))")
    }

    /// Knobs: `STRATA_MIGRATION_PROPERTY_RUNS` (default 60), `STRATA_MIGRATION_SEED` (replays
    /// the seed a failure prints).
    @Test func randomLightweightChangesMatchTheModel() async throws {
        if let seed = ProcessInfo.processInfo.environment["STRATA_MIGRATION_SEED"].flatMap(UInt64.init) {
            try Self.run(seed: seed)
            return
        }
        let seeds = Generator<UInt64, Shrink.None<UInt64>> { rng in UInt64.random(in: 0...UInt64.max, using: &rng) }
        await propertyCheck(count: testKnob("STRATA_MIGRATION_PROPERTY_RUNS", default: 60), input: seeds) { seed in
            // A thrown error must fail the test: the property checker does not report one.
            do {
                try Self.run(seed: seed)
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}
