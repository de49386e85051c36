import Foundation
import Testing
import StrataTestSupport
@testable import Strata
import StrataStorage

/// Inputs found by fuzzing (scripts/fuzz) and by reading the decoders, kept as regression
/// tests: each must fail to open with `corrupted`, never crash.
///
/// The log-recovery fuzz target appends well-formed frames around damaged payloads, as a
/// writer bug or an undetected bit flip would: the frame checksums are valid, the batch
/// record inside is not.
@Suite struct FuzzRegressionTests {
    /// Little-endian fields and varints for hand-made payloads.
    struct Bytes {
        var bytes: [UInt8] = []
        mutating func u8(_ v: UInt8) { bytes.append(v) }
        mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            bytes.append(UInt8(v))
        }
        /// One key range run list: `u32` count then (gap, count) varints.
        mutating func ranges(_ runs: [(UInt64, UInt64)]) {
            u32(UInt32(runs.count))
            for (gap, count) in runs { varint(gap); varint(count) }
        }
    }

    /// A store with a few rows, then `payload` appended as a transaction of `kind`; opening
    /// it must fail with `corrupted` naming the transaction.
    static func expectCorruptedOpen(kind: TransactionKind, _ payload: [UInt8], _ comment: Comment) throws {
        let fs = SimulatedFileSystem()
        let options = RobustnessSchema.options(fs)
        let store = try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema, options: options)
        _ = try store.execute(BatchInsertRequest(entityName: "Parent", objects: [["name": "a"], ["name": "b"]]))
        _ = try store.execute(BatchInsertRequest(entityName: "Child", objects: [["value": 1, "parent": 1]]))
        try store.close()
        let (engine, _) = try StorageEngine.open(at: RobustnessSchema.directory, options: options.storage)
        _ = try engine.append(kind: kind.rawValue, payload: payload)
        try engine.close()
        let error = #expect(throws: StorageError.self, comment) {
            try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema, options: options)
        }
        #expect(error?.code == .corrupted, comment)
    }

    @Test func keyRangeRunningPastTheLargestKey() throws {
        var p = Bytes()
        p.u32(0)                                   // entity Parent
        p.ranges([(UInt64(Int64.max - 1), 10)])    // first + count overflows Int64
        p.u16(0)                                   // no assignments
        try Self.expectCorruptedOpen(kind: .batchUpdate, p.bytes, "overflowing key range (used to trap)")
    }

    /// A save that deletes the same row twice (found by the log-recovery fuzz target in CI):
    /// the column copy ran backwards and trapped instead of refusing the payload.
    @Test func saveDeletingTheSameRowTwice() throws {
        var changes = Changeset()
        let parent = try #require(RobustnessSchema.schema.entities.firstIndex { $0.name == "Parent" })
        changes.entities[parent] = Changeset.EntityChanges(deletes: [
            .init(primaryKey: 2, expectedVersion: 0), .init(primaryKey: 2, expectedVersion: 0),
        ])
        try Self.expectCorruptedOpen(kind: .save, ChangesetCodec.encode(changes), "a row deleted twice (used to trap)")
    }

    @Test func batchUpdateOfAnUnknownProperty() throws {
        var p = Bytes()
        p.u32(0)
        p.ranges([(1, 1)])
        p.u16(1)
        p.u16(99); p.u8(0); p.u16(99); p.u8(0)   // property #99 := nil (used to index out of range)
        try Self.expectCorruptedOpen(kind: .batchUpdate, p.bytes, "unknown property index")
    }

    @Test func batchUpdateOfMoreRowsThanExist() throws {
        var p = Bytes()
        p.u32(0)
        p.ranges([(1, 1 << 40)])                   // would expand to 2^40 keys before failing
        p.u16(0)
        try Self.expectCorruptedOpen(kind: .batchUpdate, p.bytes, "huge key range")
    }

    @Test func batchDeleteOfMoreRowsThanExistAndOfUnknownProperties() throws {
        var huge = Bytes()
        huge.u32(1); huge.u32(1); huge.ranges([(1, 1 << 40)])
        huge.u32(0)
        try Self.expectCorruptedOpen(kind: .batchDelete, huge.bytes, "huge delete range")
        var unknown = Bytes()
        unknown.u32(0)
        unknown.u32(1); unknown.u32(1); unknown.u16(77); unknown.ranges([(1, 1)])
        try Self.expectCorruptedOpen(kind: .batchDelete, unknown.bytes, "nullify of an unknown property")
    }

    /// The first crash scripts/fuzz found (LogRecovery, structured mode: kind byte, 16-bit
    /// length, payload per transaction after a fresh store's metadata): a batch update whose
    /// assignment reads property #25 of a four-property entity (index out of range in
    /// `TableEditor.bulkUpdate` during replay).
    /// The fuzz targets' schema (Fuzz/Common/FuzzSupport.swift): its property indexes are
    /// what the fuzzed records name.
    static let fuzzSchema = try! Schema {
        Entity("Parent") {
            Attribute("name", .string, default: "")
            Attribute("count", .int64, default: 0)
            Attribute("flag", .bool, default: false)
            Attribute("when", .date, optional: true)
            Attribute("id", .uuid, optional: true)
            Attribute("blob", .binary, optional: true)
            Attribute("ratio", .double, optional: true)
            Relationship("children", to: "Child", inverse: "parent", toMany: true, deleteRule: .cascade)
        }
        Entity("Child") {
            Attribute("value", .int64, default: 0)
            Attribute("small", .int16, optional: true)
            Attribute("note", .string, optional: true)
            Relationship("parent", to: "Parent", inverse: "children", deleteRule: .nullify)
        }
    }

    @Test func logRecoveryCrashFoundByFuzzing() throws {
        let input = [UInt8](Data(base64Encoded: [
            "AQJqBAIAAAAAAAAABgAAAAYAAAAAAAAABQgAAABwYXJlbnQgNQMZAAAAAAAAAAEGAAAAAACIs0AACJYAAAAFBQUFBQUFBQUFBQUF",
            "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUF",
            "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBRLwBQUFBQUFBQUFBQUFBQUFBQUFBSUFBQUFBQUFBQUFBQUEq6qqqqqq+j8FAAAA",
            "AAAAAAUIAAAAcGFyZW50IDQDEgAAAAAAAAACBgAAAAAAQK9AAAh4AAAABAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE",
            "BAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE",
            "BAQEBAQEBAQEBAQEBFVVVVVVVfU/AwAAAAAAAAAFCAAAAHBhcmVudCAyAwQAAAAAAAAAAgYAAAAAAECfQAAIPAAAAAICAgICAgIC",
            "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgRVVVVVVVXlPwEAAAAAAAAABQgAAABw",
            "YXJlbnQgMAP2/////////wIGAAAAAAAAAAAH9Vt+oXX6SIaDMcAIXlaT4QgAAAAABAAAAAAAAAAAAgAAAAAAAAAFCAAAAHBhcmVu",
            "dCAxA/3/////////AQYAAAAAAECPQAAIHgAAAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQRVVVVVVVXVPwQAAAAAAAAA",
            "BQgAAABwYXJlbnQgMwMLAAAAAAAAAAEGAAAAAABwp0AHEx8O0lenTTqPXDp9u/gnCghaAAAAAwMDAwMDAwMDAwMDAwMDAwMDAwMD",
            "AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDBAAAAAAA",
            "APA/AAAAAAAAAAABAAAABwAAAAYAAAAAAAAAAwIAAAAAAAAAAwYAAAAAAAAABQIAAABuMgMEAAAAAAAAAAcAAAAAAAAAAwAAAAAA",
            "AAAAAwAAAAAAAAAABQIAAABuMAMGAAAAAAAAAAUAAAAAAAAAAwEAAAAAAAAAAwMAAAAAAAAAAAMEAAAAAAAAAAIAAAAAAAAAAwAA",
            "AAAAAAAAAwAAAAAAAAAABQIAAABuMAMDAAAAAAAAAAMAAAAAAAAAAwEAAAAAAAAAAwMAAAAAAAAAAAMDAAAAAAAAAAQAAAAAAAAA",
            "AwAAAAAAAAAAAwAAAAAAAAAABQIAAABuMAMEAAAAAAAAAAEAAAAAAAAAAwAAAAAAAAAAAwAAAAAAAAAABQIAAABuMAMCAAAAAAAA",
            "AAAAAAAAAAAAAlQAAgAAAAAAAAAAAAAAAQAAAAEAAAAAAAAAAQAAAAUHAAAAcmVuYW1lZAEAAAADAAAAAAAAAAEAAAAAAAAAAAAA",
            "AAIAAAADAAAAAAAAAAIAAAAAAAAAAyAAAAAAAAEAAAAEAwIAAQACJwADAQAAAAAAAAACAAECAAAFRAABAAAAAQAAAAIAAAAIAAAA",
            "AAAAAAMFAAAAAAAAAAAAAwIAAAAAAAAACQAAAAAAAAADBgAAAAAAAAAAAAAAAAAAAAAAAAQcAAIAAAAAAAAAAQAAAAQBAQAAAAEA",
            "AAAEAwAAAAA=",
        ].joined())!)
        let fs = SimulatedFileSystem()
        var options = PersistentStore.Options()
        options.storage.fileSystem = fs
        options.storage.segmentSize = 2048
        options.automaticCheckpointBytes = nil
        try PersistentStore.open(at: "/fuzz-store", schema: Self.fuzzSchema, options: options).close()
        let (engine, _) = try StorageEngine.open(at: "/fuzz-store", options: options.storage)
        var position = 1
        while position < input.count {
            let kind = input[position]
            let length = position + 2 < input.count ? Int(input[position + 1]) | Int(input[position + 2]) << 8 : 0
            let payload = Array(input[min(input.count, position + 3)..<min(input.count, position + 3 + length)])
            position += 3 + length
            _ = try? engine.append(kind: kind, payload: payload)
        }
        try engine.close()
        // Opening may fail (the records are damaged) but must not crash.
        if let store = try? PersistentStore.open(at: "/fuzz-store", schema: nil, options: options) { try store.close() }
    }
}
