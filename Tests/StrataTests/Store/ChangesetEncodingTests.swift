import Foundation
import Testing
@testable import Strata
import StrataStorage

/// A save's log payload is byte for byte what `docs/FORMAT.md` (12.2, 12.4) describes: the
/// expected bytes here are spelled out from the document, not produced by the encoder's code.
@Suite struct ChangesetEncodingTests {
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func string(_ s: String) -> [UInt8] { le(UInt32(s.utf8.count)) + Array(s.utf8) }

    static let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    static let date = Date(timeIntervalSinceReferenceDate: 86_400.5)

    @Test func everyValueKindIsEncodedAsTheFormatSays() {
        var changes = Changeset()
        // Entity 3 has an insert of every value kind, an update and a delete; entity 1 an
        // insert only; entity 2 nothing (left out of the payload).
        changes.entities[3] = .init(
            inserts: [.init(primaryKey: 7, values: [.null, .bool(false), .bool(true), .int(-2), .double(1.5),
                                                    .string("héllo, wörld: longer than fifteen bytes"), .date(Self.date),
                                                    .uuid(Self.uuid), .binary(Data([0xFF, 0, 0x80]))])],
            updates: [.init(primaryKey: 5, expectedVersion: 9, values: [(2, .string("")), (0, .int(Int64.min))])],
            deletes: [.init(primaryKey: 4, expectedVersion: 1)])
        changes.entities[2] = .init()
        changes.entities[1] = .init(inserts: [.init(primaryKey: -1, values: [.string("a")])])

        var expected = Self.le(UInt32(2))
        expected += Self.le(UInt32(1)) + Self.le(UInt32(1))
        expected += Self.le(Int64(-1)) + [5] + Self.string("a")
        expected += Self.le(UInt32(0)) + Self.le(UInt32(0))
        expected += Self.le(UInt32(3)) + Self.le(UInt32(1)) + Self.le(Int64(7))
        expected += [0, 1, 2, 3] + Self.le(Int64(-2))
        expected += [4] + Self.le((1.5).bitPattern)
        expected += [5] + Self.string("héllo, wörld: longer than fifteen bytes")
        expected += [6] + Self.le((86_400.5).bitPattern)
        expected += [7] + Array(1...16)
        expected += [8] + Self.le(UInt32(3)) + [0xFF, 0, 0x80]
        expected += Self.le(UInt32(1)) + Self.le(Int64(5)) + Self.le(UInt16(2))
        expected += Self.le(UInt16(2)) + [5] + Self.string("")
        expected += Self.le(UInt16(0)) + [3] + Self.le(Int64.min)
        expected += Self.le(UInt32(1)) + Self.le(Int64(4))

        #expect(ChangesetCodec.encode(changes) == expected)
    }

    @Test func anEmptyChangesetIsACountOfZero() {
        #expect(ChangesetCodec.encode(Changeset()) == [0, 0, 0, 0])
    }

    @Test func valuesWrittenAloneMatchValuesInAChangeset() {
        // Batch records write single values through `ByteWriter`.
        let values: [AttributeValue] = [.null, .bool(true), .int(3), .double(-0.0), .string("ü"),
                                        .date(Self.date), .uuid(Self.uuid), .binary(Data())]
        for value in values {
            var writer = ByteWriter()
            ValueCodec.write(value, into: &writer)
            var changes = Changeset()
            changes.entities[0] = .init(inserts: [.init(primaryKey: 1, values: [value])])
            #expect(writer.bytes == Array(ChangesetCodec.encode(changes).dropFirst(4 + 4 + 4 + 8).dropLast(8)), "\(value)")
            #expect(writer.bytes.count == ValueCodec.encodedCount(value))
        }
    }
}
