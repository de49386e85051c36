import Foundation
import PropertyBased
import Testing
@testable import Strata
import StrataStorage

/// The object graph's log payloads round-trip: changesets (saves and batch inserts), batch
/// update and batch delete records, key ranges, store metadata — and a payload cut at any
/// byte or with a flipped bit fails with an error, never a crash. (Frames and snapshots
/// have their property tests in StrataStorageTests.)
enum RandomPayload {
    typealias RNG = any SeededRandomNumberGenerator

    static let layouts = RobustnessSchema.schema.entities.enumerated().map {
        EntityLayout(entity: $1, index: $0, schema: RobustnessSchema.schema)
    }

    static func value(_ rng: inout RNG) -> AttributeValue {
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: .min ... .max, using: &rng))
        case 3: return .double(Double.random(in: -1e12...1e12, using: &rng))
        case 4: return .string(String((0..<Int.random(in: 0...12, using: &rng)).map { _ in ["a", "é", "😀", "\0", "\""][Int.random(in: 0..<5, using: &rng)] }.joined()))
        case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000...1_000_000, using: &rng))))
        case 6: return .uuid(UUID())
        case 7: return .binary(Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        default: return .int(Int64.random(in: -3...3, using: &rng))
        }
    }

    static func keys(_ rng: inout RNG) -> [Int64] {
        var keys = Set<Int64>()
        var next = Int64.random(in: -5...1_000_000, using: &rng)
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            next += Int64.random(in: 1...(Bool.random(using: &rng) ? 1 : 1000), using: &rng)
            keys.insert(next)
        }
        return keys.sorted()
    }

    static func changeset(_ rng: inout RNG) -> Changeset {
        var changes = Changeset()
        for (index, layout) in layouts.enumerated() where Bool.random(using: &rng) {
            var entity = Changeset.EntityChanges()
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                entity.inserts.append(.init(primaryKey: Int64.random(in: 1...1_000_000, using: &rng), values: layout.properties.map { _ in value(&rng) }))
            }
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                let properties = (0..<Int.random(in: 0...layout.properties.count, using: &rng)).map { _ in Int.random(in: 0..<layout.properties.count, using: &rng) }
                entity.updates.append(.init(primaryKey: Int64.random(in: 1...1_000_000, using: &rng), expectedVersion: 0, values: properties.map { ($0, value(&rng)) }))
            }
            for _ in 0..<Int.random(in: 0...5, using: &rng) { entity.deletes.append(.init(primaryKey: Int64.random(in: 1...1_000_000, using: &rng), expectedVersion: 0)) }
            changes.entities[index] = entity
        }
        return changes
    }

    static func batchUpdate(_ rng: inout RNG) -> BatchUpdateRecord {
        BatchUpdateRecord(entity: Int.random(in: 0...1, using: &rng), keys: KeyRanges(sortedKeys: keys(&rng)),
                          assignments: (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                              ResolvedAssignment(property: Int.random(in: 0...3, using: &rng), kind: [.constant, .not, .add, .copy][Int.random(in: 0...3, using: &rng)],
                                                 source: Int.random(in: 0...3, using: &rng), value: value(&rng))
                          })
    }

    static func batchDelete(_ rng: inout RNG) -> BatchDeleteRecord {
        var record = BatchDeleteRecord()
        for entity in 0...1 where Bool.random(using: &rng) { record.deletes[entity] = KeyRanges(sortedKeys: keys(&rng)) }
        for entity in 0...1 where Bool.random(using: &rng) {
            record.nullifications[entity] = [Int.random(in: 0...3, using: &rng): KeyRanges(sortedKeys: keys(&rng))]
        }
        return record
    }

    static let changesets = Generator<Changeset, Shrink.None<Changeset>> { rng in changeset(&rng) }
    static let batchUpdates = Generator<BatchUpdateRecord, Shrink.None<BatchUpdateRecord>> { rng in batchUpdate(&rng) }
    static let batchDeletes = Generator<BatchDeleteRecord, Shrink.None<BatchDeleteRecord>> { rng in batchDelete(&rng) }
}

/// Every cut and a sample of flipped bits of `bytes` decode or throw (a crash fails the run).
func expectNoCrashOnDamage(_ bytes: [UInt8], _ decode: ([UInt8]) throws -> Void) {
    for cut in 0..<bytes.count { _ = try? decode(Array(bytes.prefix(cut))) }
    for bit in stride(from: 0, to: bytes.count * 8, by: max(1, bytes.count * 8 / 64)) {
        var damaged = bytes
        damaged[bit / 8] ^= 1 << (bit % 8)
        _ = try? decode(damaged)
    }
}

@Suite struct CodecRoundTripTests {
    @Test func changesetsRoundTrip() async throws {
        await propertyCheck(count: 300, input: RandomPayload.changesets) { changes in
            let bytes = ChangesetCodec.encode(changes)
            let decoded = try ChangesetCodec.decode(bytes, layouts: RandomPayload.layouts)
            #expect(ChangesetCodec.encode(decoded) == bytes)
            for (index, entity) in changes.entities where !entity.isEmpty {
                let other = decoded.entities[index]
                #expect(other?.inserts.map(\.primaryKey) == entity.inserts.map(\.primaryKey))
                #expect(other?.inserts.map(\.values) == entity.inserts.map(\.values))
                #expect(other?.updates.map { $0.values.map(\.property) } == entity.updates.map { $0.values.map(\.property) })
                #expect(other?.updates.map { $0.values.map(\.value) } == entity.updates.map { $0.values.map(\.value) })
                #expect(other?.deletes.map(\.primaryKey) == entity.deletes.map(\.primaryKey))
            }
            expectNoCrashOnDamage(bytes) { _ = try ChangesetCodec.decode($0, layouts: RandomPayload.layouts) }
        }
    }

    @Test func batchUpdateRecordsRoundTrip() async throws {
        await propertyCheck(count: 300, input: RandomPayload.batchUpdates) { record in
            let bytes = record.encoded()
            let decoded = try BatchUpdateRecord(decoding: bytes)
            #expect(decoded == record)
            #expect(decoded.keys.keys == record.keys.keys)
            expectNoCrashOnDamage(bytes) { _ = try BatchUpdateRecord(decoding: $0) }
        }
    }

    @Test func batchDeleteRecordsRoundTrip() async throws {
        await propertyCheck(count: 300, input: RandomPayload.batchDeletes) { record in
            let bytes = record.encoded()
            let decoded = try BatchDeleteRecord(decoding: bytes)
            #expect(decoded == record)
            expectNoCrashOnDamage(bytes) { _ = try BatchDeleteRecord(decoding: $0) }
        }
    }

    @Test func storeMetadataRoundTrips() throws {
        for keys in [[1, 1], [7, 1_000_000_000_000], [Int64.max - 1, 2]] as [[Int64]] {
            let metadata = StoreMetadata(storeID: UUID(), schema: RobustnessSchema.schema, nextPrimaryKeys: keys)
            let bytes = metadata.encoded(includingKeys: true)
            let decoded = try StoreMetadata(decoding: bytes)
            #expect(decoded.storeID == metadata.storeID)
            #expect(decoded.schema == metadata.schema)
            #expect(decoded.nextPrimaryKeys == keys)
            expectNoCrashOnDamage(bytes) { _ = try StoreMetadata(decoding: $0) }
        }
    }
}
