import Testing
@testable import Strata

/// `Changeset.RowValues`: a batch insert's rows are views of one shared array; each row reads
/// as its own `[AttributeValue]`, and writing to one leaves the others and the shared array
/// as they were.
@Suite struct RowValuesTests {
    /// Three rows of two values each, as a batch insert lays them out.
    static let shared: [AttributeValue] = [.int(0), .string("a"), .int(1), .string("b"), .int(2), .string("c")]

    static func rows() -> [Changeset.RowValues] {
        (0..<3).map { Changeset.RowValues(shared: shared, base: $0 * 2, count: 2) }
    }

    @Test func eachRowReadsItsOwnRun() {
        let rows = Self.rows()
        #expect(rows.map { Array($0) } == [[.int(0), .string("a")], [.int(1), .string("b")], [.int(2), .string("c")]])
        #expect(rows[1] == Changeset.RowValues([.int(1), .string("b")]))
        #expect(rows[1] != rows[2])
    }

    @Test func writingToARowCopiesOutOnlyThatRow() {
        var rows = Self.rows()
        rows[1][1] = .string("changed")
        rows[0][0] = .null
        #expect(Array(rows[0]) == [.null, .string("a")])
        #expect(Array(rows[1]) == [.int(1), .string("changed")])
        #expect(Array(rows[2]) == [.int(2), .string("c")])
        #expect(Self.shared == [.int(0), .string("a"), .int(1), .string("b"), .int(2), .string("c")])
        // A second write to the copied-out row stays in it.
        rows[1][0] = .int(10)
        #expect(Array(rows[1]) == [.int(10), .string("changed")])
        #expect(Array(rows[2]) == [.int(2), .string("c")])
    }

    @Test func aRowOfItsOwnIsCopiedOnWriteLikeAnArray() {
        let original = Changeset.RowValues([.bool(true), .double(1.5)])
        var copy = original
        copy[0] = .bool(false)
        #expect(Array(original) == [.bool(true), .double(1.5)])
        #expect(Array(copy) == [.bool(false), .double(1.5)])
    }

    /// A batch insert's inserts are views of one array; the log record and the rows applied are
    /// the ones an array per row gives.
    @Test func aBatchInsertsRowsEncodeAsArraysOfTheirOwn() {
        let views = Self.rows().enumerated().map { Changeset.Insert(primaryKey: Int64($0.offset + 1), values: $0.element) }
        let arrays = Self.rows().enumerated().map { Changeset.Insert(primaryKey: Int64($0.offset + 1), values: Array($0.element)) }
        var a = Changeset(), b = Changeset()
        a.entities[0] = Changeset.EntityChanges(inserts: views)
        b.entities[0] = Changeset.EntityChanges(inserts: arrays)
        #expect(ChangesetCodec.encode(a) == ChangesetCodec.encode(b))
    }
}
