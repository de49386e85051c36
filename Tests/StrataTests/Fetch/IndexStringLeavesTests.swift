import Foundation
import StrataTestSupport
import Testing
@testable import Strata

/// A single-string index built from its table's columns (``TableIndex/stringLeaves(of:in:)``)
/// holds every row's entry in index order, rows without a value first, exactly as comparing
/// the entries orders them, in leaves of plain strings that a search for a value reads; each
/// distinct string is held once, shared by its entries; and a
/// key probe's table (``HashedKeys``), which adds each run of equal values once, counts every
/// value's entries and knows a lone entry's primary key, for strings and integers.
@Suite struct IndexStringLeavesTests {
    static let schema = try! Schema {
        Entity("Item", indexes: [["text"], ["number"]]) {
            Attribute("text", .string, optional: true)
            Attribute("number", .int64, optional: true)
        }
    }

    /// Trouble strings (many canonically equal in other bytes), long repeated strings, unique
    /// ones and nils; integers with repeats and nils.
    static func values(_ random: inout SplitMix64, row: Int) -> [String: AttributeValue] {
        let text: AttributeValue
        switch random.next() % 10 {
        case 0: text = .null
        case 1, 2: text = .string("A name long enough to live on the heap \(random.next() % 7)")
        case 3: text = .string("unique \(row)")
        default: text = .string(TroubleStrings.string(&random, maxPieces: 3))
        }
        return ["text": text, "number": random.next() % 9 == 0 ? .null : .int(Int64(random.next() % 300) - 50)]
    }

    @Test(arguments: [UInt64(3), 4]) func buildsInIndexOrderAndHashesEachValueOnce(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        // Several batches: several chunks, built both decoded and, after a reopen, from
        // columns not decoded yet.
        var row = 0
        for size in [1_500, 700, 2_100] {
            _ = try fixture.store.execute(BatchInsertRequest(entityName: "Item", objects: (0..<size).map { _ in
                row += 1
                return Self.values(&random, row: row)
            }))
        }
        for label in ["decoded", "reopened"] {
            if label == "reopened" { try fixture.reopen() }
            let table = fixture.store.currentVersion.tables[0]
            let text = try #require(table.layout.properties.firstIndex { $0.name == "text" })
            let number = try #require(table.layout.properties.firstIndex { $0.name == "number" })
            let index = TableIndex(properties: [text], table: table)
            var expected: [IndexEntry] = []
            for chunk in table.chunks {
                for (row, key) in chunk.primaryKeys.enumerated() {
                    expected.append(TableIndex.entry(chunk, row, key, [table.layout.columnAccess[text]]))
                }
            }
            expected.sort(by: IndexEntry.precedes)
            let entries = index.leaves.flatMap(\.entries)
            #expect(entries.map(\.primaryKey) == expected.map(\.primaryKey), "\(label): the index order")
            #expect(entries.map(\.first) == expected.map(\.first), "\(label): the indexed values")
            // Each entry keeps its own row's spelling, also where the entries of canonically
            // equal spellings are merged by key.
            func bytes(_ value: AttributeValue) -> [UInt8] { if case .string(let s) = value { Array(s.utf8) } else { [] } }
            let respelled = entries.indices.first { bytes(entries[$0].first) != bytes(expected[$0].first) }
            #expect(respelled == nil, "\(label): entry \(respelled ?? -1) has another row's spelling")
            #expect(index.count == expected.count)

            // Equal bytes, one string: the heap strings' storage is shared.
            var storage: [String: UnsafeRawPointer] = [:]
            for entry in entries {
                guard case .string(let string) = entry.first, string.utf8.count > 15 else { continue }
                let address = try #require(string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress!) })
                let bytes = String(decoding: Array(string.utf8), as: UTF8.self) + "|\(Array(string.utf8))"
                #expect(storage[bytes, default: address] == address, "\(label): \(string) is held twice")
                storage[bytes] = address
            }

            // The leaves after the nils hold plain strings, and a search through them finds
            // every entry of a value, however it is spelled.
            let flat = index.leaves.filter { if case .strings = $0.values { return true } else { return false } }
            #expect(flat.reduce(0) { $0 + $1.count } == entries.filter { !$0.first.isNull }.count, "\(label): leaves not of strings")
            for probe in entries.map(\.first).filter({ !$0.isNull }).shuffled(using: &random).prefix(60) {
                guard case .string(let string) = probe else { continue }
                for spelling in [string, string.decomposedStringWithCanonicalMapping, StringOrder.nfc(string)] {
                    let found = index.primaryKeys(firstEqualTo: .string(spelling), limit: .max)
                    #expect(found == entries.filter { $0.first == .string(spelling) }.map(\.primaryKey), "\(label): the search for \(spelling)")
                }
            }

            try Self.checkHashedKeys(HashedKeys(index, as: .string("")), entries, label: "\(label), text")
            let numbers = TableIndex(properties: [number], table: table)
            try Self.checkHashedKeys(HashedKeys(numbers, as: .integer(0)), numbers.leaves.flatMap(\.entries), label: "\(label), number")
        }
    }

    /// `hashed` holds each non-nil value of `entries` once, with its number of entries and,
    /// for a value of one entry, that entry's primary key (`==` as a predicate means it:
    /// canonically equal strings are one value).
    static func checkHashedKeys(_ hashed: HashedKeys, _ entries: [IndexEntry], label: String) throws {
        var model: [AttributeValue: [Int64]] = [:]
        for entry in entries where !entry.first.isNull {
            model[entry.first, default: []].append(entry.primaryKey)
        }
        let slots: [(AttributeValue, Int, Int64)]
        switch hashed {
        case .strings(let table): slots = table.slots.map { (.string($0.key), $0.count, $0.primaryKey) }
        case .integers(let table): slots = table.slots.map { (.int($0.key), $0.count, $0.primaryKey) }
        case .unavailable:
            Issue.record("\(label): no table")
            return
        }
        #expect(slots.count == model.count, "\(label): \(slots.count) keys for \(model.count) values")
        for (value, count, primaryKey) in slots {
            let keys = try #require(model[value], "\(label): \(value) is not a value")
            #expect(count == keys.count, "\(label): \(value) counts \(count) of \(keys.count) entries")
            #expect(primaryKey == (keys.count == 1 ? keys[0] : KeyHashTable<String>.unknown), "\(label): \(value)'s primary key")
        }
    }
}
