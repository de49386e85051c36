import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A to-many relationship's objects (`objects(forKey:)`): read through the index on the
/// inverse key, registered in the context, handed out as faults that remember their rows
/// (fault hints). Checked against a plain model of the context's view through random saves,
/// unsaved inserts, moves, renames and deletes, batch inserts and deletes, and reopens.
@Suite struct RelatedObjectsTests {
    static let schema = try! Schema {
        Entity("List") {
            Attribute("title", .string, optional: true)
            Relationship("items", to: "Item", inverse: "list", toMany: true, deleteRule: .cascade)
        }
        Entity("Item") {
            Attribute("name", .string)
            Relationship("list", to: "List", inverse: "items", deleteRule: .nullify)
        }
    }

    /// An item as the context should see it: its list's key (or none) and its name.
    struct ModelItem: Equatable {
        var list: Int64?
        var name: String
    }

    /// The model's items of `list`, by key (ascending, as the relationship orders them).
    static func expected(_ items: [Int64: ModelItem], list: Int64) -> [(Int64, String)] {
        items.filter { $0.value.list == list }.sorted { $0.key < $1.key }.map { ($0.key, $0.value.name) }
    }

    @Test(arguments: 1...6)
    func randomChangesKeepEveryListEqualToTheModel(seed: Int) throws {
        print("RelatedObjectsTests seed \(seed)")
        var random = SplitMix64(seed: UInt64(seed))
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        var store = fixture.store
        var context = fixture.context()
        // Three lists, 30 items spread over them (some in none), saved.
        var lists: [Int64] = []
        var items: [Int64: ModelItem] = [:]
        var names = 0
        func nextName() -> String { names += 1; return "item \(names)" }
        try context.performAndWait {
            let made = try (0..<3).map { n in
                let list = try context.insert("List")
                try list.setValue(.string("list \(n)"), forKey: "title")
                return list
            }
            lists = made.map(\.objectID.primaryKey)
            for _ in 0..<30 {
                let item = try context.insert("Item")
                let name = nextName()
                try item.setValue(.string(name), forKey: "name")
                let list = Int(random.next() % 4)
                if list < 3 { try item.setObject(made[list], forKey: "list") }
                items[item.objectID.primaryKey] = ModelItem(list: list < 3 ? lists[list] : nil, name: name)
            }
            try context.save()
        }
        func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(storeID: store.storeID, entityName: entity, primaryKey: key) }

        for step in 0..<80 {
            let keys = items.keys.sorted()
            let pick = keys.isEmpty ? nil : keys[Int(random.next() % UInt64(keys.count))]
            let listPick = Int(random.next() % 4)
            let operation = Int(random.next() % 9)
            try context.performAndWait {
                switch operation {
                case 0:
                    let item = try context.insert("Item")
                    let name = nextName()
                    try item.setValue(.string(name), forKey: "name")
                    if listPick < 3 { try item.setObject(context.object(with: id("List", lists[listPick])), forKey: "list") }
                    items[item.objectID.primaryKey] = ModelItem(list: listPick < 3 ? lists[listPick] : nil, name: name)
                case 1:
                    guard let pick else { return }
                    let list = listPick < 3 ? context.object(with: id("List", lists[listPick])) : nil
                    try context.object(with: id("Item", pick)).setObject(list, forKey: "list")
                    items[pick]?.list = listPick < 3 ? lists[listPick] : nil
                case 2:
                    guard let pick else { return }
                    let name = nextName()
                    try context.object(with: id("Item", pick)).setValue(.string(name), forKey: "name")
                    items[pick]?.name = name
                case 3:
                    guard let pick else { return }
                    context.delete(context.object(with: id("Item", pick)))
                    items[pick] = nil
                case 4, 5:
                    try context.save()
                case 6:
                    // A batch delete bypasses the context: done when it has nothing unsaved.
                    guard !context.hasChanges, let pick else { return }
                    let doomed = keys.filter { $0 >= pick }.prefix(3)
                    _ = try store.execute(BatchDeleteRequest(objectIDs: doomed.map { id("Item", $0) }))
                    for key in doomed { items[key] = nil }
                case 7:
                    guard !context.hasChanges else { return }
                    let rows = (0..<3).map { n in (name: nextName(), list: n == 0 || listPick == 3 ? nil : lists[listPick]) }
                    var request = BatchInsertRequest(entityName: "Item", objects: rows.map { row in
                        ["name": .string(row.name), "list": row.list.map { .int($0) } ?? .null]
                    })
                    request.resultType = .objectIDs
                    let inserted = try #require(try store.execute(request).objectIDs).map(\.primaryKey).sorted()
                    for (key, row) in zip(inserted, rows) { items[key] = ModelItem(list: row.list, name: row.name) }
                default:
                    break
                }
            }
            if operation == 8 {
                // Reopen (the context's unsaved changes saved first, as a closing app would).
                try context.performAndWait { try context.save() }
                store = try fixture.reopen()
                context = fixture.context()
            }
            try check(context, lists: lists, items: items, step: step, seed: seed, random: &random)
        }
    }

    /// Every list's objects against the model: the same keys in key order, the context's
    /// registered objects, the model's names; objects that a refresh turned into faults still
    /// faults when handed out. Then refreshes some unchanged ones, so the next read hands
    /// them out as faults again.
    func check(_ context: ObjectContext, lists: [Int64], items: [Int64: ModelItem], step: Int, seed: Int,
               random: inout SplitMix64) throws {
        var refreshed = Set<Int64>()
        for round in 0..<2 {
            try context.performAndWait {
                for list in lists {
                    let object = context.object(with: ObjectID(storeID: context.store.storeID, entityName: "List", primaryKey: list))
                    let related = try object.objects(forKey: "items")
                    let expected = Self.expected(items, list: list)
                    #expect(related.map(\.objectID.primaryKey) == expected.map(\.0), "seed \(seed) step \(step) round \(round) list \(list)")
                    for item in related where refreshed.contains(item.objectID.primaryKey) {
                        #expect(item.isFault, "seed \(seed) step \(step): \(item) was loaded by the relationship read")
                    }
                    for item in related {
                        #expect(context.object(with: item.objectID) === item, "seed \(seed) step \(step): \(item) is not the registered object")
                    }
                    #expect(try related.map { try $0.string("name") ?? "" } == expected.map(\.1), "seed \(seed) step \(step) round \(round) list \(list)")
                    if round == 0 {
                        for item in related where !item.hasChanges && random.next() % 2 == 0 {
                            context.refresh(item, mergeChanges: false)
                            refreshed.insert(item.objectID.primaryKey)
                        }
                    }
                }
            }
        }
    }

    /// A fault the relationship handed out remembers its row in the version read; once the
    /// store has published another version (another context's save, a batch update or
    /// delete), firing it reads the newest row instead.
    @Test func aFaultFiredAfterANewerVersionReadsTheNewerRow() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let writer = fixture.context()
        let listID = try writer.performAndWait {
            let list = try writer.insert("List")
            for n in 0..<4 {
                let item = try writer.insert("Item")
                try item.setValue(.string("old \(n)"), forKey: "name")
                try item.setObject(list, forKey: "list")
            }
            try writer.save()
            return list.objectID
        }
        let store = try fixture.reopen()
        let reader = fixture.context(), other = fixture.context()
        try reader.performAndWait {
            let items = try reader.object(with: listID).objects(forKey: "items")
            #expect(items.count == 4 && items.allSatisfy { $0.isFault })
            #expect(items.allSatisfy { $0.hasFaultHint }, "the relationship's faults carry no hint")
            try other.performAndWait {
                try other.object(with: items[0].objectID).setValue("new 0", forKey: "name")
                try other.save()
            }
            #expect(try items[0].string("name") == "new 0")
            _ = try store.execute(BatchUpdateRequest(entityName: "Item", predicate: try ObjectPredicate(format: "name == 'old 1'"),
                                                     propertiesToUpdate: ["name": .constant("new 1")]))
            #expect(try items[1].string("name") == "new 1")
            _ = try store.execute(BatchDeleteRequest(objectIDs: [items[2].objectID]))
            let error = #expect(throws: StrataError.self) { try items[2].string("name") }
            #expect(error?.code == .objectNotFound)
            #expect(try items[3].string("name") == "old 3")
        }
    }

    /// The relationship registers its objects and hands them out as faults: reading one
    /// loads that one alone, from its row, and a later read of the relationship hands out
    /// the same objects.
    @Test func theObjectsAreRegisteredFaultsUntilTouched() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let writer = fixture.context()
        let listID = try writer.performAndWait {
            let list = try writer.insert("List")
            // Other lists' items between, so that the relationship's rows are not one run.
            let other = try writer.insert("List")
            for n in 0..<3000 {
                let item = try writer.insert("Item")
                try item.setValue(.string("item \(n)"), forKey: "name")
                try item.setObject(n % 3 == 0 ? list : other, forKey: "list")
            }
            try writer.save()
            return list.objectID
        }
        try fixture.reopen()
        let context = fixture.context()
        try context.performAndWait {
            let items = try context.object(with: listID).objects(forKey: "items")
            #expect(items.count == 1000)
            #expect(items.allSatisfy { $0.isFault })
            #expect(try items[500].string("name") == "item 1500")
            #expect(!items[500].isFault)
            #expect(items.enumerated().allSatisfy { $0.offset == 500 || $0.element.isFault })
            let again = try context.object(with: listID).objects(forKey: "items")
            #expect(zip(items, again).allSatisfy { $0 === $1 })
            #expect(try again.map { try $0.string("name") } == (0..<1000).map { "item \($0 * 3)" })
        }
    }

    /// A store whose snapshot damage is recorded (a chunk that failed its first decode,
    /// ``SnapshotDamage``): reading a relationship throws that damage, and makes no object,
    /// so no fault can hold a hint into placeholder columns.
    @Test func aDamagedStoreThrowsBeforeAnyObjectIsMade() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let writer = fixture.context()
        let listID = try writer.performAndWait {
            let list = try writer.insert("List")
            for n in 0..<10 {
                let item = try writer.insert("Item")
                try item.setValue(.string("item \(n)"), forKey: "name")
                try item.setObject(list, forKey: "list")
            }
            try writer.save()
            return list.objectID
        }
        let store = try fixture.reopen()
        let context = fixture.context()
        try context.performAndWait { () throws in
            let list = context.object(with: listID)
            #expect(try list.objects(forKey: "items").count == 10)
            store.snapshotDamage.record(StrataError(.corrupted, "forged for the test"), snapshot: "snapshot-test.snap", chunk: 0)
            context.registry.removeAll()
            let before = context.registry.count
            let error = #expect(throws: StrataError.self) { try list.objects(forKey: "items") }
            #expect(error?.code == .corrupted)
            #expect(context.registry.count == before, "the damaged read made objects")
        }
    }
}
