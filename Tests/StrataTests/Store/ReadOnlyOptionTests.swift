import Testing
import Foundation
import StrataTestSupport
@testable import Strata

/// `options.isReadOnly = true` (what a newcomer writes) and `options: .readOnly` open the
/// same way: no writer lock, and a save or batch request is refused.
@Suite struct ReadOnlyOptionTests {
    @Test func isReadOnlyIsTheSameAsTheReadOnlyOptions() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let writer = try PersistentStore.open(at: dir.path, schema: AsyncFixture.schema, options: .unsyncedWithoutCheckpoints)
        _ = try writer.execute(BatchInsertRequest(entityName: "TodoItem", objects: [["name": "a", "createdAt": .date(Date())]]))
        var options = PersistentStore.Options()
        #expect(!options.isReadOnly)
        options.isReadOnly = true
        #expect(options.storage.readOnly && PersistentStore.Options.readOnly.isReadOnly)
        // A reader opens while the writer holds the lock.
        let reader = try PersistentStore.open(at: dir.path, options: options)
        #expect(reader.isReadOnly)
        #expect(reader.rowCounts["TodoItem"] == 1)
        #expect(throws: (any Error).self) {
            _ = try reader.execute(BatchInsertRequest(entityName: "TodoItem", objects: [["name": "b", "createdAt": .date(Date())]]))
        }
        try reader.close()
        try writer.close()
    }
}
