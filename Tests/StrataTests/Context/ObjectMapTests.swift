import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// `ObjectMap`, the paged map behind a context's registry and changed objects, against a
/// dictionary doing the same operations.
@Suite struct ObjectMapTests {
    static let schema = try! Schema { Entity("Item") { Attribute("name", .string) } }

    /// A store of `Item`s in a temporary directory and a context on it, for making objects.
    static func withContext(_ body: (PersistentStore, ObjectContext) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: Self.schema)
        defer { try? store.close() }
        try body(store, ObjectContext(store: store))
    }

    @Test func behavesLikeADictionary() throws {
        try Self.withContext { store, context in
            var random = SplitMix64(seed: 7)
            var map = ObjectMap()
            var reference: [RegistryKey: ManagedObject] = [:]
            // Keys cluster like real ones, with far-off, negative and foreign (negative entity) keys too.
            func key() -> RegistryKey {
                switch random.next() % 10 {
                case 0: return RegistryKey(entity: -1 - Int(random.next() % 3), primaryKey: Int64(random.next() % 5))
                case 1: return RegistryKey(entity: Int(random.next() % 3), primaryKey: Int64(bitPattern: random.next()))
                case 2: return RegistryKey(entity: 0, primaryKey: -Int64(random.next() % 3_000))
                default: return RegistryKey(entity: Int(random.next() % 3), primaryKey: Int64(random.next() % 5_000))
                }
            }
            for step in 0..<20_000 {
                let k = key()
                if random.next() % 3 == 0 {
                    map[k] = nil
                    reference[k] = nil
                } else {
                    let object = ManagedObject(objectID: ObjectID(storeID: store.storeID, entityName: "Item", primaryKey: k.primaryKey),
                                               layoutIndex: max(k.entity, 0), registryKey: k, context: context, lifecycle: .persisted)
                    map[k] = object
                    reference[k] = object
                }
                #expect(map.count == reference.count, "step \(step)")
                let probe = key()
                #expect(map[probe] === reference[probe], "step \(step)")
            }
            let sorted = reference.keys.sorted { ($0.entity < 0 ? 1 : 0, abs($0.entity), $0.primaryKey) < ($1.entity < 0 ? 1 : 0, abs($1.entity), $1.primaryKey) }
            let keys = map.keys
            #expect(keys.count == sorted.count)
            #expect(zip(keys, sorted).allSatisfy { $0 == $1 }, "key order: entities in index order, then foreign keys")
            let values = map.values.map(ObjectIdentifier.init)
            #expect(values.elementsEqual(sorted.map { ObjectIdentifier(reference[$0]!) }))
            // Emptying slots through forEachSlot drops them.
            map.forEachSlot { key, slot in if key.primaryKey % 2 == 0 { slot = nil } }
            #expect(map.count == reference.keys.filter { $0.primaryKey % 2 != 0 }.count)
            map.removeAll()
            #expect(map.isEmpty && map.keys.isEmpty)
        }
    }

    /// `contains(where:)` finds an object in any entity's pages, at either end of a page's
    /// filled span, and among the foreign keys; it finds none that left the map.
    @Test func containsFindsEveryObjectItHolds() throws {
        try Self.withContext { store, context in
            var map = ObjectMap()
            let keys = [RegistryKey(entity: 0, primaryKey: 3), RegistryKey(entity: 0, primaryKey: 1_023),
                        RegistryKey(entity: 0, primaryKey: 5_000), RegistryKey(entity: 2, primaryKey: -7),
                        RegistryKey(entity: -1, primaryKey: 4)]
            var objects: [ManagedObject] = []
            for key in keys {
                let object = ManagedObject(objectID: ObjectID(storeID: store.storeID, entityName: "Item", primaryKey: key.primaryKey),
                                           layoutIndex: max(key.entity, 0), registryKey: key, context: context, lifecycle: .persisted)
                map[key] = object
                objects.append(object)
            }
            for (key, object) in zip(keys, objects) {
                #expect(map.contains { $0 === object }, "\(key)")
            }
            #expect(!map.contains { _ in false })
            for (key, object) in zip(keys, objects) {
                map[key] = nil
                #expect(!map.contains { $0 === object }, "\(key) removed")
            }
            #expect(!map.contains { _ in true })
        }
    }

    @Test func aSlotIsChangedInPlace() throws {
        try Self.withContext { store, context in
            var map = ObjectMap()
            let key = RegistryKey(entity: 0, primaryKey: 1_500)
            map[key] = ManagedObject(objectID: ObjectID(storeID: store.storeID, entityName: "Item", primaryKey: 1_500),
                                     layoutIndex: 0, registryKey: key, context: context, lifecycle: .persisted)
            #expect(map.withSlot(key) { isKnownUniquelyReferenced(&$0) }, "the map's reference is the only one")
            let held = map[key]
            #expect(!map.withSlot(key) { isKnownUniquelyReferenced(&$0) })
            _ = held
        }
    }
}
