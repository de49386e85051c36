import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Appending rows at the end of a table: the tail chunks are rebuilt like a binary counter
/// (so a one-row save copies O(log chunk size) rows, not the whole tail chunk), pinned
/// versions never see a later append, and all chunks but the last few stay full.
@Suite struct TailAppendTests {
    static let schema = try! Schema {
        Entity("Item") {
            Attribute("name", .string)
            Attribute("note", .string, optional: true)
            Attribute("count", .int64, optional: true)
            Attribute("done", .bool, default: false)
        }
    }

    /// What a version holds: every row's key, version and values, in key order.
    static func contents(_ version: StoreVersion, _ table: Int) -> [String] {
        let entity = version.tables[table]
        var rows: [String] = []
        for (c, chunk) in entity.chunks.enumerated() {
            for row in 0..<chunk.count {
                let values = entity.layout.properties.indices.map { "\(entity.value($0, at: (c, row)))" }
                rows.append("\(chunk.primaryKeys[row])@\(chunk.versions[row]): \(values.joined(separator: ", "))")
            }
        }
        return rows
    }

    @Test func pinnedVersionsNeverSeeLaterAppends() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try PersistentStore.open(at: directory.path, schema: Self.schema, options: .unsyncedWithoutCheckpoints)
        let table = store.layoutIndex["Item"]!
        let context = ObjectContext(store: store)
        var pinned: [(StoreVersion, [String])] = []
        var saved = 0
        // One-row saves (the case the tail merging is for), then a few batches of other
        // sizes that cross chunk boundaries; rows with and without nulls, so that merged
        // columns get and lose validity maps.
        let batches = [Int](repeating: 1, count: 2_600) + [3, 700, 1, 1_500, 2, 5, 2_049, 1]
        try context.performAndWait {
            for (b, size) in batches.enumerated() {
                for _ in 0..<size {
                    let item = try context.insert("Item")
                    try item.setValue(.string("item \(saved)"), forKey: "name")
                    if saved % 7 == 0 { try item.setValue(.string("note \(saved)"), forKey: "note") }
                    if saved % 3 != 0 { try item.setValue(.int(Int64(saved)), forKey: "count") }
                    saved += 1
                }
                try context.save()
                if b % 97 == 0 || size > 1 {
                    let version = store.currentVersion
                    pinned.append((version, Self.contents(version, table)))
                }
            }
        }
        for (version, expected) in pinned {
            #expect(Self.contents(version, table) == expected, "version \(version.lsn) changed after it was published")
        }
        let head = store.currentVersion.tables[table]
        #expect(head.rowCount == saved)
        #expect(head.allKeys == head.allKeys.sorted())
        #expect(Set(head.allKeys).count == saved)
        // Every chunk but the trailing, partly filled ones is full.
        let partial = head.chunks.reversed().prefix { $0.count < EntityTable.chunkRows }.count
        #expect(head.chunks.dropLast(partial).allSatisfy { $0.count == EntityTable.chunkRows })
        #expect(partial <= 12, "\(partial) partly filled tail chunks")
        try store.checkInvariants()

        // The same rows after a reopen (replay of the log).
        try store.close()
        let reopened = try PersistentStore.open(at: directory.path, schema: Self.schema, options: .unsyncedWithoutCheckpoints)
        defer { try? reopened.close() }
        #expect(Self.contents(reopened.currentVersion, table) == Self.contents(store.currentVersion, table))
    }

    @Test func oneRowSavesCopyLittleOfTheTail() throws {
        // Simulates the merge rule on chunk sizes alone: each row is copied a bounded number
        // of times, far below the ~chunkRows/2 copies of rebuilding the tail chunk per save.
        var editor = TableEditor(table: EntityTable(layout: EntityLayout(entity: Self.schema.entities[0], index: 0, schema: Self.schema)))
        var copied = 0
        for key in 1...5_000 {
            let before = editor.table.chunks
            try editor.apply(.init(inserts: [.init(primaryKey: Int64(key), values: [.string("x"), .null, .null, .bool(false)])]), version: UInt64(key))
            // Rows copied: those of the chunks that were replaced.
            let kept = Set(editor.table.chunks.map(ObjectIdentifier.init))
            copied += before.filter { !kept.contains(ObjectIdentifier($0)) }.reduce(0) { $0 + $1.count }
            #expect(editor.table.rowCount == key)
            #expect(editor.table.chunkFirstKeys == editor.table.chunks.map(\.firstKey))
        }
        #expect(copied / 5_000 <= 16, "\(copied / 5_000) rows copied per one-row insert")
    }
}
