import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A transaction's updates are applied chunk by chunk (each chunk's columns copied once, a
/// string column rebuilt once): the table must hold exactly what applying them one at a
/// time in order gives, with repeated rows (the later update wins), nils, and strings that
/// grow, shrink and empty, across every chunk. Recovery replays a log through the same code.
@Suite struct ChunkUpdateTests {
    static let schema = TailAppendTests.schema

    @Test(arguments: [1, 2, 3]) func updatesMatchApplyingThemOneAtATime(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let layout = EntityLayout(entity: Self.schema.entities[0], index: 0, schema: Self.schema)
        var editor = TableEditor(table: EntityTable(layout: layout))
        let keys = Array(Int64(1)...3_000)
        try editor.apply(Changeset.EntityChanges(inserts: BulkInsertTests.inserts(keys)), version: 1)
        #expect(editor.table.chunks.count > 2, "the updates span several chunks")
        var model = Dictionary(uniqueKeysWithValues: keys.map { ($0, (values: BulkInsertTests.row($0), version: Int64(1))) })
        for round in 2...4 {
            var updates: [Changeset.Update] = []
            for _ in 0..<Int.random(in: 1...1_500, using: &random) {
                let key = Int64.random(in: 1...Int64(keys.count), using: &random)
                var values: [(property: Int, value: AttributeValue)] = []
                for property in 0..<4 where Bool.random(using: &random) {
                    let text = String(repeating: "é", count: Int.random(in: 0...30, using: &random))
                    switch property {
                    case 0: values.append((0, .string(text)))
                    case 1: values.append((1, Bool.random(using: &random) ? .null : .string(text)))
                    case 2: values.append((2, Bool.random(using: &random) ? .null : .int(Int64.random(in: -9...9, using: &random))))
                    default: values.append((3, .bool(Bool.random(using: &random))))
                    }
                }
                updates.append(Changeset.Update(primaryKey: key, expectedVersion: 0, values: values))
                for (property, value) in values { model[key]!.values[property] = value }
                model[key]!.version = Int64(round)
            }
            try editor.apply(Changeset.EntityChanges(updates: updates), version: UInt64(round))
            let table = editor.table
            for (c, chunk) in table.chunks.enumerated() {
                for row in 0..<chunk.count {
                    let key = chunk.primaryKeys[row]
                    let values = layout.properties.indices.map { table.value($0, at: (c, row)) }
                    #expect(values == model[key]!.values, "seed \(seed), round \(round), row \(key)")
                    #expect(chunk.versions[row] == model[key]!.version, "seed \(seed), round \(round), version of row \(key)")
                }
            }
        }
    }

    @Test func anUpdateOfAMissingRowIsADamagedPayload() throws {
        let layout = EntityLayout(entity: Self.schema.entities[0], index: 0, schema: Self.schema)
        var editor = TableEditor(table: EntityTable(layout: layout))
        try editor.apply(Changeset.EntityChanges(inserts: BulkInsertTests.inserts([1, 2, 3])), version: 1)
        #expect(throws: PayloadError.self) {
            try editor.apply(Changeset.EntityChanges(updates: [
                Changeset.Update(primaryKey: 2, expectedVersion: 0, values: [(0, .string("x"))]),
                Changeset.Update(primaryKey: 9, expectedVersion: 0, values: [(0, .string("y"))]),
            ]), version: 2)
        }
    }
}
