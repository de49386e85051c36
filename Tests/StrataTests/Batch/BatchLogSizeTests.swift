import Testing
import Foundation
import StrataTestSupport
import StrataStorage
@testable import Strata

/// A batch update logs the matched keys as ranges: updating every row of a big entity
/// appends a few bytes, not a row per key.
///
/// Knob: `STRATA_LOG_SIZE_ROWS` (default 100,000 rows on disk; 1,000,000 is the issue's
/// figure and runs in a release build).
@Suite struct BatchLogSizeTests {
    static let schema = try! Schema {
        Entity("TodoItem") {
            Attribute("done", .bool, default: false)
            Attribute("priority", .int16, default: 0)
        }
    }

    @Test func updatingEveryRowAppendsWellUnder64KB() throws {
        let rows = testKnob("STRATA_LOG_SIZE_ROWS", default: 100_000)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PersistentStore.open(at: dir.path, schema: Self.schema, options: BatchFixture.options())
        var insert = BatchInsertRequest(entityName: "TodoItem", count: rows) { i, row in row["priority"] = .int(Int64(i % 5)) }
        insert.resultType = .count
        #expect(try store.execute(insert).count == rows)
        let before = try BatchFixture.logBytes(in: dir.path)
        let engineBefore = store.engine.logBytesSinceCheckpoint

        var update = BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .not("done"), "priority": .add("priority", 1)])
        update.resultType = .count
        #expect(try store.execute(update).count == rows)
        let appended = try BatchFixture.logBytes(in: dir.path) - before
        print("batch update of \(rows) rows appended \(appended) bytes to the log")
        #expect(appended > 0)
        #expect(appended < 1_024, "appended \(appended) bytes")
        #expect(store.engine.logBytesSinceCheckpoint - engineBefore == Int64(appended))

        // Replay gives the same state.
        let expected = BatchFixture.dump(store)
        try store.close()
        let reopened = try PersistentStore.open(at: dir.path, schema: Self.schema, options: BatchFixture.options())
        #expect(BatchFixture.dump(reopened) == expected)
        try reopened.close()
    }

    @Test func recordForAMillionContiguousKeysIsTiny() throws {
        let keys = KeyRanges(sortedKeys: Array(1...1_000_000))
        #expect(keys.runs.count == 1)
        let record = BatchUpdateRecord(entity: 0, keys: keys, assignments: [
            ResolvedAssignment(property: 0, kind: .constant, source: 0, value: .bool(true))])
        let bytes = record.encoded()
        #expect(bytes.count < 64)
        #expect(try BatchUpdateRecord(decoding: bytes) == record)

        var delete = BatchDeleteRecord()
        delete.deletes[0] = keys
        delete.nullifications[1] = [2: KeyRanges(sortedKeys: Array(stride(from: 1, through: 2_000_000, by: 2)))]
        let deleteBytes = delete.encoded()
        // A million contiguous keys cost a few bytes; a million alternating ones about 2 each.
        #expect(deleteBytes.count < 2_100_000)
        #expect(try BatchDeleteRecord(decoding: deleteBytes) == delete)
    }

    @Test func keyRangesRoundTripRandomKeySets() throws {
        let base = UInt64(testKnob("STRATA_SEED", default: 1))
        for seed in base..<base + 200 {
            var rng = SplitMix64(seed: seed)
            var keys: [Int64] = []
            var key = Int64(rng.next() % 1_000)
            for _ in 0..<Int(rng.next() % 500) {
                key += rng.next() % 4 == 0 ? Int64(1 + rng.next() % 100_000) : 1
                keys.append(key)
            }
            let ranges = KeyRanges(sortedKeys: keys)
            #expect(ranges.keys == keys, "seed \(seed) (STRATA_SEED=\(seed))")
            var writer = ByteWriter()
            ranges.encode(into: &writer)
            var reader = ByteReader(writer.bytes)
            #expect(try KeyRanges(decoding: &reader) == ranges, "seed \(seed)")
            #expect(reader.isAtEnd, "seed \(seed)")
        }
    }
}
