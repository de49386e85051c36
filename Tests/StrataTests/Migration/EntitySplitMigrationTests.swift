import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// A custom stage that splits an entity: v1 `Person{fullName, street, city}` becomes v2
/// `Person{firstName, lastName, address}` + `Address{street, city, people}`. The stage
/// inserts one address per distinct street and city, relates each person to it, and deletes
/// the placeholder people (empty names) — all in the migration's one transaction.
@Suite struct EntitySplitMigrationTests {
    typealias F = MigrationFixtures

    static let v1 = try! Schema {
        Entity("Person") {
            Attribute("fullName", .string)
            Attribute("street", .string)
            Attribute("city", .string)
        }
    }
    static let v2 = try! Schema {
        Entity("Person") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Relationship("address", to: "Address", inverse: "people", optional: false)
        }
        Entity("Address") {
            Attribute("street", .string)
            Attribute("city", .string)
            Relationship("people", to: "Person", inverse: "address", toMany: true, deleteRule: .cascade)
        }
    }

    /// Splits names and addresses; deletes people whose name is empty.
    static let split = MigrationStage.custom(from: "1", to: "2", batchSize: 16) { context in
        var addresses: [[AttributeValue]: Int64] = [:]
        try context.forEachObject(of: "Person") { person in
            guard case .string(let full) = try person.value(forKey: "fullName"), !full.isEmpty else {
                return try context.delete(person)
            }
            let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
            try context.setValue(.string(parts[0]), forKey: "firstName", of: person)
            try context.setValue(.string(parts.count > 1 ? parts[1] : ""), forKey: "lastName", of: person)
            let street = try person.value(forKey: "street"), city = try person.value(forKey: "city")
            let address = try addresses[[street, city]]
                ?? context.insertObject(into: "Address", values: ["street": street, "city": city])
            addresses[[street, city]] = address
            try context.setValue(.int(address), forKey: "address", of: person)
        }
    }

    static func plan(_ stage: MigrationStage = split) -> MigrationPlan {
        MigrationPlan(versions: [.init("1", v1), .init("2", v2)], stages: [stage])
    }

    static let places = [("1 Main St", "Springfield"), ("2 Elm St", "Shelbyville"), ("3 Oak Ave", "Springfield"),
                         ("4 Pine Rd", "Capital City"), ("5 Birch Ln", "Ogdenville")]

    /// A v1 store of `count` people (every 10th a placeholder with an empty name), each at
    /// one of five places.
    static func makeStore(count: Int = 60) throws -> (SimulatedFileSystem, StoreDump) {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: F.directory, schema: v1, options: F.options(fs))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for i in 0..<count {
                let person = try context.insert("Person")
                try person.setValue(.string(i % 10 == 3 ? "" : "first\(i) last \(i)"), forKey: "fullName")
                let place = places[(i * 7) % places.count]
                try person.setValue(.string(place.0), forKey: "street")
                try person.setValue(.string(place.1), forKey: "city")
            }
            try context.save()
        }
        let before = F.dump(store)
        try store.close()
        return (fs, before)
    }

    /// The same split on the dump: addresses numbered from 1 in the order people (by key)
    /// first name them.
    static func expected(_ before: StoreDump) -> StoreDump {
        var people: [Int64: [String: AttributeValue]] = [:]
        var addresses: [Int64: [String: AttributeValue]] = [:]
        var keys: [[AttributeValue]: Int64] = [:]
        for (key, row) in before["Person"]!.sorted(by: { $0.key < $1.key }) {
            guard case .string(let full)? = row["fullName"], !full.isEmpty else { continue }
            let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
            let place = [row["street"]!, row["city"]!]
            let address = keys[place] ?? Int64(keys.count + 1)
            keys[place] = address
            addresses[address] = ["street": place[0], "city": place[1]]
            people[key] = ["firstName": .string(parts[0]), "lastName": .string(parts[1]), "address": .int(address)]
        }
        return ["Person": people, "Address": addresses]
    }

    @Test func splittingAnEntityInsertsRelatesAndDeletesInOneTransaction() throws {
        let (fs, before) = try Self.makeStore()
        let expected = Self.expected(before)
        #expect(expected["Address"]?.count == Self.places.count)
        #expect(expected["Person"]!.count == 54, "six placeholders are deleted")
        let store = try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(), options: F.options(fs))
        #expect(F.dump(store) == expected)
        #expect(store.schema == Self.v2)
        // Kept people keep their keys, so their object IDs.
        #expect(Set(expected["Person"]!.keys).isSubset(of: Set(before["Person"]!.keys)))
        // The relationships, both ways, through a context.
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for address in try context.fetch(FetchRequest(entityName: "Address")) {
                let people = try address.objects(forKey: "people").map(\.objectID.primaryKey).sorted()
                let wanted = expected["Person"]!.filter { $0.value["address"] == .int(address.objectID.primaryKey) }.keys.sorted()
                #expect(people == wanted && !people.isEmpty)
                for person in try address.objects(forKey: "people") {
                    #expect(try person.object(forKey: "address")?.objectID == address.objectID)
                }
            }
            // New objects after the migration take keys after the inserted ones.
            let address = try context.insert("Address")
            try address.setValue(.string("6 Ash Ct"), forKey: "street")
            try address.setValue(.string("North Haverbrook"), forKey: "city")
            try context.save()
            #expect(address.objectID.primaryKey == Int64(Self.places.count + 1))
        }
        let migratedAt = store.schemaHistory.last!.lsn
        try store.close()
        // Replaying the record, then from a snapshot.
        let replayed = try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(), options: F.options(fs))
        #expect(F.dump(replayed)["Person"] == expected["Person"])
        #expect(F.dump(replayed)["Address"]?.count == Self.places.count + 1)
        #expect(replayed.schemaHistory.last!.lsn == migratedAt, "reopening migrated again")
        try replayed.checkpoint()
        try replayed.close()
        let fromSnapshot = try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(), options: F.options(fs))
        #expect(F.dump(fromSnapshot)["Person"] == expected["Person"])
        try fromSnapshot.close()
    }

    @Test func aStageThatThrowsAfterInsertingAndDeletingLeavesTheStoreAsItWas() throws {
        struct Stop: Error {}
        let (fs, before) = try Self.makeStore(count: 40)
        let log = try F.logBytes(fs)
        let failing = MigrationStage.custom(from: "1", to: "2") { context in
            var seen = 0
            try context.forEachObject(of: "Person") { person in
                let address = try context.insertObject(into: "Address", values: ["street": .string("x"), "city": .string("y")])
                try context.setValue(.int(address), forKey: "address", of: person)
                if seen % 3 == 0 { try context.delete(person) }
                seen += 1
                if seen == 30 { throw Stop() }
            }
        }
        let error = #expect(throws: StrataError.self) {
            try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(failing), options: F.options(fs))
        }
        #expect(error?.code == .migrationFailed)
        #expect(error?.cause is Stop)
        #expect(try F.logBytes(fs) == log)
        let store = try PersistentStore.open(at: F.directory, options: F.options(fs))
        #expect(store.schema == Self.v1)
        #expect(F.dump(store) == before)
        try store.close()
    }

    @Test func relationshipsToNothingAndMissingRequiredOnesAreRefused() throws {
        let (fs, _) = try Self.makeStore(count: 12)
        let log = try F.logBytes(fs)
        func attempt(_ body: @escaping @Sendable (MigrationContext, MigrationObject) throws -> Void) -> StrataError? {
            let stage = MigrationStage.custom(from: "1", to: "2") { context in
                try context.forEachObject(of: "Person") { person in
                    try context.setValue(.string("a"), forKey: "firstName", of: person)
                    try context.setValue(.string("b"), forKey: "lastName", of: person)
                    try body(context, person)
                }
            }
            return #expect(throws: StrataError.self) {
                try PersistentStore.open(at: F.directory, migrationPlan: Self.plan(stage), options: F.options(fs))
            }
        }
        // A key no object has.
        let dangling = attempt { context, person in
            try context.setValue(.int(person.primaryKey == 5 ? 99 : try context.insertObject(into: "Address")), forKey: "address", of: person)
        }
        #expect(dangling?.code == .migrationFailed)
        #expect(dangling?.message.contains("Person.address points at 1 objects that do not exist (for example Address #99)") == true)
        // An address the stage inserted and no person left without one, but one person unrelated.
        let missing = attempt { context, person in
            guard person.primaryKey != 4 else { return }
            try context.setValue(.int(try context.insertObject(into: "Address")), forKey: "address", of: person)
        }
        #expect(missing?.message.contains("required to-one relationship Person.address has no value in 1 rows") == true)
        // Inserting a required attribute with the wrong type, and writing a deleted object.
        let wrongType = attempt { context, _ in _ = try context.insertObject(into: "Address", values: ["street": .int(1)]) }
        #expect((wrongType?.cause as? StrataError)?.code == .typeMismatch)
        let unknown = attempt { context, _ in _ = try context.insertObject(into: "Adress") }
        #expect((unknown?.cause as? StrataError)?.code == .unknownEntity)
        let afterDelete = attempt { context, person in
            try context.delete(person)
            try context.setValue(.string("c"), forKey: "firstName", of: person)
        }
        #expect((afterDelete?.cause as? StrataError)?.code == .objectNotFound)
        #expect(try F.logBytes(fs) == log, "nothing was written")
    }
}
