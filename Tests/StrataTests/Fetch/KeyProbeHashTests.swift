import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// The key probe's hashed keys (``HashedKeys``): a probe builds them, and from then on the
/// probe's answers are a scan's through random saves (inserts, updates of the keys, deletes,
/// merges by uniqueness), batch inserts, upserts, batch updates and deletes, and reopens with
/// or without a checkpoint, on strings full of canonically equivalent spellings and on
/// integers; after every step each index's hashed keys equal those rebuilt from its entries.
///
/// Knobs: `STRATA_KEY_HASH_PROBE_CASES` (seeds, default 2), `STRATA_KEY_HASH_PROBE_STEPS`
/// (steps per seed, default 25), `STRATA_KEY_HASH_PROBE_SEED` (replay one seed).
@Suite struct KeyProbeHashTests {
    static let cases = testKnob("STRATA_KEY_HASH_PROBE_CASES", default: 2)
    static let steps = testKnob("STRATA_KEY_HASH_PROBE_STEPS", default: 25)
    static let rows = 3_000

    static var seeds: [UInt64] {
        let replay = testKnob("STRATA_KEY_HASH_PROBE_SEED", default: -1)
        return replay >= 0 ? [UInt64(replay)] : (0..<cases).map { UInt64($0) * 104_729 + 5 }
    }

    /// `email` is unique (so most keys have one entry), `text` repeats (trouble strings, many
    /// canonically equal), `number` is an integer with repeats and nils.
    static let schema = try! Schema {
        Entity("Item", indexes: [["text"], ["number"]], uniquenessConstraints: [["email"]]) {
            Attribute("email", .string, optional: true)
            Attribute("text", .string, optional: true)
            Attribute("number", .int64, optional: true)
        }
    }

    /// An email: mostly unique numbers, spelled with a precomposed or a decomposed "é" (the
    /// two are one email), sometimes nil.
    static func email(_ random: inout SplitMix64, range: Int) -> AttributeValue {
        if random.next() % 12 == 0 { return .null }
        let accent = random.next() % 2 == 0 ? "\u{E9}" : "e\u{301}"
        return .string("p\(random.next() % UInt64(range))@\(accent).example")
    }

    static func values(_ random: inout SplitMix64) -> [String: AttributeValue] {
        ["email": email(&random, range: rows * 2),
         "text": random.next() % 10 == 0 ? .null : .string(TroubleStrings.string(&random, maxPieces: 2)),
         "number": random.next() % 10 == 0 ? .null : .int(Int64(random.next() % 500) - 100)]
    }

    /// Lookups that exercise the table: each key spelled as stored, in NFC and in NFD, absent
    /// ones, and integers around the stored range.
    static func lookups(_ random: inout SplitMix64) -> [(String, AttributeValue)] {
        var lookups: [(String, AttributeValue)] = []
        for _ in 0..<40 {
            if case .string(let email) = email(&random, range: rows * 2) {
                lookups.append(("email", .string(email)))
                lookups.append(("email", .string(email.decomposedStringWithCanonicalMapping)))
            }
            let text = TroubleStrings.string(&random, maxPieces: 2)
            lookups.append(("text", .string(text)))
            lookups.append(("text", .string(StringOrder.nfc(text))))
            lookups.append(("number", .int(Int64(random.next() % 520) - 110)))
        }
        return lookups
    }

    /// The keys of `rows` (every row, as a scan reads them) with `key == value` (`==` as the
    /// predicate means it).
    static func scanned(_ rows: StoredRows, _ key: String, _ value: AttributeValue) -> [Int64] {
        let column = rows.keys.firstIndex(of: key)!
        return rows.rows.filter { $0.values[column] == value }.map(\.primaryKey).sorted()
    }

    /// Every built index's hashed keys equal the ones built from its entries now: the same
    /// keys, entry counts and, for a key with one entry, its primary key.
    static func checkHashedKeys(_ store: PersistentStore, _ label: String) {
        let version = store.currentVersion
        for table in version.tables {
            for lazy in table.indexes where lazy.isBuilt {
                let index = lazy.index(for: table)
                guard let hashed = index.hashedKeys else { continue }
                let probe: ProbeKey = table.layout.properties[index.properties[0]].type == .string ? .string("") : .integer(0)
                let rebuilt = HashedKeys(index, as: probe)
                let what = "\(label): hashed keys of index \(index.properties)"
                let difference: String?
                switch (hashed, rebuilt) {
                case (.strings(let got), .strings(let expected)): difference = firstDifference(got, expected)
                case (.integers(let got), .integers(let expected)): difference = firstDifference(got, expected)
                default: difference = "another kind than the index's"
                }
                if let difference { Issue.record("\(what) differ from a rebuild: \(difference)") }
            }
        }
    }

    /// The first key whose entry count or primary key differs between `got` and `expected`
    /// (the unknown primary key is `Int64.min`), or `nil` when they hold the same.
    static func firstDifference<Key>(_ got: KeyHashTable<Key>, _ expected: KeyHashTable<Key>) -> String? {
        let x = Dictionary(uniqueKeysWithValues: got.slots.map { ($0.key, ($0.count, $0.primaryKey)) })
        let y = Dictionary(uniqueKeysWithValues: expected.slots.map { ($0.key, ($0.count, $0.primaryKey)) })
        for (key, value) in x where y[key].map({ $0 != value }) ?? true {
            return "\(key): \(value.0) entries, primary key \(value.1); a rebuild has \(y[key].map { "\($0.0) entries, primary key \($0.1)" } ?? "none")"
        }
        for (key, value) in y where x[key] == nil {
            return "\(key) is missing (\(value.0) entries in a rebuild)"
        }
        return nil
    }

    @Test(arguments: seeds) func probesAnswerAsAScanThroughEveryKindOfChange(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let place = "seed \(seed) (replay with STRATA_KEY_HASH_PROBE_SEED=\(seed))"
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        var upsert = BatchInsertRequest(entityName: "Item", objects: (0..<Self.rows).map { _ in Self.values(&random) })
        upsert.mode = .upsert
        _ = try fixture.store.execute(upsert)

        func compare(_ label: String) throws {
            let store = fixture.store
            let context = fixture.context("lookups")
            let rows = try store.fetchRows(FetchRequest(entityName: "Item"))
            // Saves and upserts match emails through the hashed keys: still no two rows share one.
            let emails = rows.rows.compactMap { row -> String? in
                if case .string(let email) = row.values[rows.keys.firstIndex(of: "email")!] { return email }
                return nil
            }
            #expect(Set(emails).count == emails.count, "\(place), \(label): two rows share an email")
            for (key, value) in Self.lookups(&random) {
                let request = FetchRequest(entityName: "Item", predicate: .comparison(.init(.keyPath([key]), .equalTo, .constant(value))))
                let expected = Self.scanned(rows, key, value)
                let got = try context.performAndWaitFetchKeys(request)
                #expect(got == expected, "\(place), \(label): \(key) == \(value)")
                if let probe = KeyProbe(request, store: store), let keys = probe.keys(store.currentVersion, options: store.options) {
                    #expect(keys == expected, "\(place), \(label): the probe of \(key) == \(value)")
                }
            }
            // Every probed index has its keys hashed.
            let table = store.currentVersion.tables[0]
            for lazy in table.indexes {
                #expect(lazy.isBuilt && lazy.index(for: table).hashedKeys != nil, "\(place), \(label): index \(lazy.properties) has no hashed keys")
            }
            Self.checkHashedKeys(store, "\(place), \(label)")
        }
        try compare("populated")

        var reopened = false
        for step in 0..<Self.steps {
            let label = "step \(step)"
            switch random.next() % 7 {
            case 0, 1:
                // A context inserts, changes keys and deletes; a clash by email is merged.
                let context = fixture.context("change", policy: .objectTrump)
                let keys = try fixture.store.fetchRows(FetchRequest(entityName: "Item")).rows.map(\.primaryKey)
                try context.performAndWait {
                    for _ in 0..<Int(random.next() % 6) { try context.insert("Item").setValues(Self.values(&random)) }
                    for _ in 0..<Int(random.next() % 6) where !keys.isEmpty {
                        let id = ObjectID(storeID: fixture.store.storeID, entityName: "Item", primaryKey: keys[Int(random.next() % UInt64(keys.count))])
                        let object = try context.existingObject(with: id)
                        if random.next() % 4 == 0 { context.delete(object) } else {
                            let changes = Self.values(&random)
                            // One key changed at a time, or all of them.
                            if random.next() % 2 == 0, let one = changes.randomElement(using: &random) {
                                try object.setValue(one.value, forKey: one.key)
                            } else {
                                try object.setValues(changes)
                            }
                        }
                    }
                    do {
                        try context.save()
                    } catch {
                        // An update onto another row's email is refused whatever the policy.
                        #expect((error as? StrataError)?.code == .constraintConflict, "\(place), \(label): \(error)")
                    }
                }
            case 2:
                // An upsert: known emails (updated) and new ones.
                var request = BatchInsertRequest(entityName: "Item", objects: (0..<Int(1 + random.next() % 200)).map { _ in Self.values(&random) })
                request.mode = .upsert
                _ = try fixture.store.execute(request)
            case 3:
                // A plain batch insert of new emails (or none), which cannot clash.
                let request = BatchInsertRequest(entityName: "Item", objects: (0..<Int(1 + random.next() % 100)).map { i in
                    var values = Self.values(&random)
                    values["email"] = random.next() % 3 == 0 ? .null : .string("new\(step)-\(i)@example")
                    return values
                })
                _ = try fixture.store.execute(request)
            case 4:
                // A batch update of the keys of some rows.
                let low = Int64(random.next() % 400) - 100
                let request = BatchUpdateRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number BETWEEN {\(low), \(low + 30)}"),
                                                 propertiesToUpdate: ["number": .add("number", .int(Int64(random.next() % 7) - 3)),
                                                                      "text": .constant(.string(TroubleStrings.string(&random, maxPieces: 2)))])
                _ = try fixture.store.execute(request)
            case 5:
                let low = Int64(random.next() % 400) - 100
                _ = try fixture.store.execute(BatchDeleteRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number BETWEEN {\(low), \(low + 10)}")))
            default:
                if random.next() % 2 == 0 { _ = try fixture.store.checkpoint() }
                try fixture.reopen()
                reopened = true
            }
            // Every index was probed, so every change but a reopen keeps its keys hashed
            // (they are never dropped and built again behind the probe's back).
            let table = fixture.store.currentVersion.tables[0]
            for lazy in table.indexes where !reopened {
                #expect(lazy.isBuilt && lazy.index(for: table).hashedKeys != nil, "\(place), \(label): index \(lazy.properties) lost its hashed keys")
            }
            reopened = false
            Self.checkHashedKeys(fixture.store, "\(place), \(label) before lookups")
            try compare(label)
        }
    }

    /// A key left with one entry of two is answered from the table again, with the primary
    /// key of the entry that is left (read from the index), not by a search of the leaves.
    @Test func aKeyLeftWithOneEntryGetsItsPrimaryKeyBack() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: (0..<2_000).map { i in
            ["email": .string("p\(i)@x"), "text": .string(i < 2 ? "twin" : "t\(i)"), "number": .int(Int64(i))]
        }))
        let context = fixture.context("lookups")
        let twin = try ObjectPredicate(format: "text == 'twin'")
        #expect(try context.performAndWaitFetchKeys(FetchRequest(entityName: "Item", predicate: twin)) == [1, 2])
        func match(_ text: String) -> KeyMatch? {
            let table = fixture.store.currentVersion.tables[0]
            return table.indexes[0].index(for: table).hashedKeys?.match(.string(text))
        }
        #expect(match("twin") == .several)
        _ = try fixture.store.execute(BatchDeleteRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == 0")))
        #expect(match("twin") == .one(2))
        #expect(try context.performAndWaitFetchKeys(FetchRequest(entityName: "Item", predicate: twin)) == [2])
        _ = try fixture.store.execute(BatchDeleteRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == 1")))
        #expect(match("twin") == KeyMatch.none)
        #expect(try context.performAndWaitFetchKeys(FetchRequest(entityName: "Item", predicate: twin)) == [])
    }

    /// A context reads the index it last probed again while no commit is published, sees
    /// every commit (its own, another context's, a batch request's) at the next probe, and
    /// keeps no older version's index alive.
    @Test func aContextsLastIndexFollowsCommitsAndKeepsNoOldIndexAlive() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: (0..<2_000).map { i in
            ["email": .string("p\(i)@x"), "text": .string("t\(i)"), "number": .int(Int64(i))]
        }))
        let context = fixture.context("lookups"), writer = fixture.context("writer")
        func lookup(_ email: String) throws -> [Int64] {
            try context.performAndWaitFetchKeys(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "email == %@", email)))
        }
        #expect(try lookup("p5@x") == [6])
        weak let first = context.performAndWait { context.probeShape?.lastIndex }
        #expect(first != nil && context.probeShape?.lastLSN == fixture.store.lastLSN)
        #expect(try lookup("p7@x") == [8], "read again at the same LSN")
        try writer.performAndWait {
            try writer.existingObject(with: ObjectID(storeID: fixture.store.storeID, entityName: "Item", primaryKey: 6)).setValue("moved@x", forKey: "email")
            try writer.insert("Item").setValues(["email": "new@x", "text": "t", "number": .int(1)])
            try writer.save()
        }
        #expect(first == nil, "the index of the version before the save is gone")
        #expect(try lookup("p5@x") == [])
        #expect(try lookup("moved@x") == [6])
        #expect(try lookup("new@x") == [2_001])
        _ = try fixture.store.execute(BatchDeleteRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == 7")))
        #expect(try lookup("p7@x") == [])
        var upsert = BatchInsertRequest(entityName: "Item", objects: [["email": "p7@x", "text": "back", "number": .int(7)]])
        upsert.mode = .upsert
        _ = try fixture.store.execute(upsert)
        #expect(try lookup("p7@x") == [2_002])
        #expect(context.performAndWait { context.probeShape?.lastLSN } == fixture.store.lastLSN)
    }

    /// Nothing is hashed until a probe asks: a fetch through the index by another plan builds
    /// the index alone.
    @Test func onlyAProbeHashesTheKeys() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: (0..<2_000).map { i in
            ["email": .string("p\(i)@x"), "text": .string("t\(i % 10)"), "number": .int(Int64(i))]
        }))
        let context = fixture.context("lookups")
        #expect(try context.performAndWaitFetchKeys(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number IN {3, 4}"))) == [4, 5])
        let table = fixture.store.currentVersion.tables[0]
        #expect(table.indexes[1].isBuilt && table.indexes[1].index(for: table).hashedKeys == nil)
        #expect(try context.performAndWaitFetchKeys(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "number == 3"))) == [4])
        let after = fixture.store.currentVersion.tables[0]
        #expect(after.indexes[1].index(for: after).hashedKeys?.match(.integer(3)) == .one(4))
        #expect(after.indexes[0].index(for: after).hashedKeys == nil, "the text index was not probed")
    }
}
