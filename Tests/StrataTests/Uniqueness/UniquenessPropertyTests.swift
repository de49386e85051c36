import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// Random sequences of saves (under each merge policy), batch inserts, upserts, updates from
/// a second context, deletes, and closes and reopens (with or without a checkpoint): after
/// every step no two people share an email, the store equals a plain dictionary model
/// that applies the documented rules, and a lookup by email finds the model's row.
///
/// Knobs: `STRATA_UNIQUE_CASES` (seeds, default 4), `STRATA_UNIQUE_STEPS` (steps per seed,
/// default 60), `STRATA_UNIQUE_SEED` (replay one seed printed by a failure).
@Suite struct UniquenessPropertyTests {
    typealias Row = UniquenessFixtures.Row
    static let cases = testKnob("STRATA_UNIQUE_CASES", default: 4)
    static let steps = testKnob("STRATA_UNIQUE_STEPS", default: 60)

    static var seeds: [UInt64] {
        let replay = testKnob("STRATA_UNIQUE_SEED", default: -1)
        return replay >= 0 ? [UInt64(replay)] : (0..<cases).map { UInt64($0) * 7919 + 11 }
    }

    @Test(arguments: seeds) func constraintsHoldAndTheStoreMatchesTheModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let fixture = try StoreFixture(UniquenessFixtures.people)
        defer { fixture.remove() }
        var model: [Int64: Row] = [:]
        let pool = (0..<8).map { "p\($0)@x" }
        func email() -> String? { random.next() % 6 == 0 ? nil : pool[Int(random.next() % UInt64(pool.count))] }
        func name() -> String? { random.next() % 3 == 0 ? nil : "n\(random.next() % 100)" }
        func hasDuplicate(_ rows: some Sequence<Row>) -> Bool {
            var seen: Set<String> = []
            for row in rows { if let email = row.email, !seen.insert(email).inserted { return true } }
            return false
        }
        for step in 0..<Self.steps {
            let place = "seed \(seed) (STRATA_UNIQUE_SEED=\(seed)), step \(step)"
            switch random.next() % 7 {
            case 0, 1:
                // A context inserts 1 to 3 people under a random policy.
                let policy = [MergePolicy.error, .objectTrump, .storeTrump][Int(random.next() % 3)]
                let people = (0..<(1 + Int(random.next() % 3))).map { _ in Row(email: email(), name: name(), n: Int64(random.next() % 4)) }
                let context = fixture.context("insert", policy: policy)
                let (objects, error) = context.performAndWait { () -> ([ManagedObject], (any Error)?) in
                    var objects: [ManagedObject] = []
                    do {
                        for person in people {
                            let object = try context.insert("Person")
                            try object.setValues(["email": person.email.map { .string($0) } ?? .null,
                                                  "name": person.name.map { .string($0) } ?? .null, "n": .int(person.n)])
                            objects.append(object)
                        }
                        try context.save()
                        return (objects, nil)
                    } catch { return (objects, error) }
                }
                if policy == .error {
                    if hasDuplicate(Array(model.values) + people) {
                        #expect((error as? StrataError)?.code == .constraintConflict, "\(place)")
                    } else {
                        #expect(error == nil, "\(place): \(String(describing: error))")
                        context.performAndWait { for (object, person) in zip(objects, people) { model[object.objectID.primaryKey] = person } }
                    }
                } else {
                    #expect(error == nil, "\(place): \(String(describing: error))")
                    // The documented merge: per email, the stored row (or the first insert)
                    // survives; under objectTrump later values that differ from the
                    // defaults (name nil, n 0) win.
                    var firstKey: [String: Int64] = [:]
                    context.performAndWait {
                        for (object, person) in zip(objects, people) {
                            guard let email = person.email else { model[object.objectID.primaryKey] = person; continue }
                            let key = model.first { $0.value.email == email }?.key ?? firstKey[email]
                            guard let key else {
                                firstKey[email] = object.objectID.primaryKey
                                model[object.objectID.primaryKey] = person
                                continue
                            }
                            if policy == .objectTrump {
                                if let name = person.name { model[key]!.name = name }
                                if person.n != 0 { model[key]!.n = person.n }
                            }
                        }
                    }
                }
            case 2:
                // A batch insert, plain or upsert.
                let rows = (0..<(1 + Int(random.next() % 4))).map { _ in Row(email: email(), name: name(), n: Int64(random.next() % 4)) }
                let upsert = random.next() % 2 == 0
                var request = BatchInsertRequest(entityName: "Person", objects: rows.map { row in
                    var object: [String: AttributeValue] = ["email": row.email.map { .string($0) } ?? .null, "n": .int(row.n)]
                    if let name = row.name { object["name"] = .string(name) }
                    return object
                })
                request.mode = upsert ? .upsert : .insert
                let before = Set(model.keys)
                do {
                    _ = try fixture.store.execute(request)
                    #expect(upsert || !hasDuplicate(Array(model.values) + rows), "\(place): a duplicate batch insert was accepted")
                } catch {
                    #expect(!upsert && hasDuplicate(Array(model.values) + rows), "\(place): \(error)")
                    break
                }
                var inserted: [Row] = []
                for row in rows {
                    if upsert, let email = row.email {
                        if let key = model.first(where: { $0.value.email == email })?.key {
                            model[key]!.n = row.n
                            if let name = row.name { model[key]!.name = name }
                            continue
                        }
                        if let at = inserted.firstIndex(where: { $0.email == email }) {
                            inserted[at].n = row.n
                            if let name = row.name { inserted[at].name = name }
                            continue
                        }
                    }
                    inserted.append(row)
                }
                let newKeys = UniquenessFixtures.rows(fixture.store).keys.filter { !before.contains($0) }.sorted()
                #expect(newKeys.count == inserted.count, "\(place)")
                for (key, row) in zip(newKeys, inserted) { model[key] = row }
            case 3:
                // A second context changes one person's email and name.
                guard let key = model.keys.sorted().dropFirst(Int(random.next() % UInt64(max(model.count, 1)))).first else { break }
                let id = ObjectID(storeID: fixture.store.storeID, entityName: "Person", primaryKey: key)
                let newEmail = email(), newName = name()
                let context = fixture.context("update", policy: [MergePolicy.error, .objectTrump][Int(random.next() % 2)])
                let error = context.performAndWait { () -> (any Error)? in
                    do {
                        let person = try context.existingObject(with: id)
                        try person.setValues(["email": newEmail.map { .string($0) } ?? .null, "name": newName.map { .string($0) } ?? .null])
                        try context.save()
                        return nil
                    } catch { return error }
                }
                let clash = newEmail.map { value in model.contains { $0.key != key && $0.value.email == value } } ?? false
                if clash {
                    #expect((error as? StrataError)?.code == .constraintConflict, "\(place)")
                } else {
                    #expect(error == nil, "\(place): \(String(describing: error))")
                    model[key]!.email = newEmail
                    model[key]!.name = newName
                }
            case 4:
                // A delete.
                guard let key = model.keys.sorted().dropFirst(Int(random.next() % UInt64(max(model.count, 1)))).first else { break }
                let context = fixture.context("delete")
                try context.performAndWait {
                    context.delete(try context.existingObject(with: ObjectID(storeID: fixture.store.storeID, entityName: "Person", primaryKey: key)))
                    try context.save()
                }
                model[key] = nil
            case 5:
                if random.next() % 2 == 0 { _ = try fixture.store.checkpoint() }
                try fixture.reopen()
            default:
                // An upsert through a context: the same email again, under objectTrump.
                guard let existing = model.values.compactMap(\.email).first else { break }
                let context = fixture.context("upsert", policy: .objectTrump)
                let n = Int64(1 + random.next() % 3)
                try context.performAndWait {
                    try context.insert("Person").setValues(["email": .string(existing), "n": .int(n)])
                    try context.save()
                }
                let key = model.first { $0.value.email == existing }!.key
                model[key]!.n = n
            }
            let stored = UniquenessFixtures.rows(fixture.store)
            #expect(!hasDuplicate(stored.values), "\(place): two people share an email")
            #expect(stored == model, "\(place): the store differs from the model\n store \(stored.sorted { $0.key < $1.key })\n model \(model.sorted { $0.key < $1.key })")
            if stored != model { return }
            // A point lookup by email (a key probe, which hashes the constraint index's keys, so
            // that later saves and upserts match and check through them) finds the model's row.
            let wanted = pool[Int(random.next() % UInt64(pool.count))]
            let lookup = fixture.context("lookup")
            let found = try lookup.performAndWait {
                try lookup.fetchObjectIDs(FetchRequest(entityName: "Person", predicate: try ObjectPredicate(format: "email == %@", wanted))).map(\.primaryKey)
            }
            #expect(found == model.filter { $0.value.email == wanted }.map(\.key).sorted(), "\(place): the lookup of \(wanted)")
        }
    }
}
