import Testing
import Foundation
import StrataTestSupport
@testable import Strata
import StrataStorage

/// The bulk paths batch requests take: removing sorted rows from columns by copying the kept
/// runs, filling a column with a constant, key ranges taken from chunks, and store changes
/// whose ID sets are made only when read.
@Suite struct BatchBulkPathTests {
    @Test(arguments: [1, 2, 3, 42, 1_000]) func removeRowsMatchesTheReference(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<50 {
            let count = Int.random(in: 0...300, using: &random)
            let rate = [0.0, 0.05, 0.5, 0.95, 1.0].randomElement(using: &random)!
            let rows = (0..<count).filter { _ in Double.random(in: 0..<1, using: &random) < rate }
            let ints = (0..<count).map { _ in Int64.random(in: -1_000...1_000, using: &random) }
            let strings = (0..<count).map { _ in String(repeating: "x", count: Int.random(in: 0...12, using: &random)) + "\(Int.random(in: 0...99, using: &random))" }
            let validity = (0..<count).map { _ in Bool.random(using: &random) }
            var bytes = ByteColumn()
            for s in strings { bytes.append(s.utf8) }

            var intColumn = ColumnChunk(values: .int64(ints))
            intColumn.validity = validity
            var byteColumn = ColumnChunk(values: .bytes(bytes))
            intColumn.remove(rows: rows)
            byteColumn.remove(rows: rows)

            let dropped = Set(rows)
            let keep = (0..<count).filter { !dropped.contains($0) }
            var expectedBytes = ByteColumn()
            for i in keep { expectedBytes.append(strings[i].utf8) }
            #expect(intColumn.values == .int64(keep.map { ints[$0] }), "seed \(seed)")
            #expect(intColumn.validity == keep.map { validity[$0] }, "seed \(seed)")
            #expect(byteColumn.values == .bytes(expectedBytes), "seed \(seed)")
        }
    }

    @Test func fillSetsRowsAndKeepsTheValidityForm() {
        var column = ColumnChunk(values: .int64([1, 2, 3, 4]))
        column.fill([1, 3], with: .int(9))
        #expect(column.values == .int64([1, 9, 3, 9]))
        #expect(column.validity == nil)
        column.fill([0, 2], with: .null)
        #expect(column.validity == [false, true, false, true])
        column.fill([0, 1, 2, 3], with: .int(5))
        #expect(column.values == .int64([5, 5, 5, 5]))
        #expect(column.validity == [true, true, true, true])
        var flags = ColumnChunk(values: .bool([false, false, true]))
        flags.fill([0, 1, 2], with: .bool(true))
        #expect(flags.values == .bool([true, true, true]))
    }

    @Test func keyRangesFromSortedKeys() {
        #expect(KeyRanges(sortedKeys: []).runs.isEmpty)
        let ranges = KeyRanges(sortedKeys: [1, 2, 3, 7, 9, 10])
        #expect(ranges.runs.map { [$0.first, $0.count] } == [[1, 3], [7, 1], [9, 2]])
        #expect(ranges.keys == [1, 2, 3, 7, 9, 10])
        #expect(ranges.count == 6)
    }

    @Test func batchUpdateChangeListsEveryUpdatedID() throws {
        let dir = try TemporaryDirectory()
        let store = try PersistentStore.open(at: dir.path, schema: BatchFixture.todoSchema, options: BatchFixture.options())
        let ids = try BatchFixture.insert(store, "TodoItem", (0..<3_000).map { ["name": .string("item \($0)"), "createdAt": .date(Date(timeIntervalSinceReferenceDate: Double($0)))] })
        let changes = Locked<[StoreChange]>([])
        let token = store.observeChanges { change in changes.withLock { $0.append(change) } }
        defer { token.cancel() }
        _ = try store.execute(BatchUpdateRequest(entityName: "TodoItem", propertiesToUpdate: ["done": .constant(true)]))
        var predicate = BatchDeleteRequest(objectIDs: Array(ids[10..<20]) + [ids[2_999]])
        predicate.resultType = .objectIDs
        let deleted = try store.execute(predicate).objectIDs
        let seen = changes.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.first?.updated == Set(ids))
        #expect(seen.first?.inserted.isEmpty == true && seen.first?.deleted.isEmpty == true)
        #expect(seen.last?.deleted == Set(ids[10..<20]).union([ids[2_999]]))
        #expect(deleted == (Array(ids[10..<20]) + [ids[2_999]]).sorted())
        // Copies share the IDs once made, and compare equal to a change built from sets.
        if let change = seen.first {
            let copy = change
            #expect(copy == StoreChange(lsn: change.lsn, kind: change.kind, inserted: [], updated: Set(ids), deleted: [],
                                        originContext: nil))
            #expect(copy.hashValue == change.hashValue)
        }
    }
}
