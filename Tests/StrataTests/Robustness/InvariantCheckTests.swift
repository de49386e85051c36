import Testing
import StrataTestSupport
@testable import Strata

/// `PersistentStore.checkInvariants()` passes on healthy stores and names what is broken
/// on damaged ones (damage planted in the in-memory version, which the log does not have).
@Suite struct InvariantCheckTests {
    static func healthyStore() throws -> PersistentStore {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: RobustnessSchema.directory, schema: RobustnessSchema.schema,
                                             options: RobustnessSchema.options(fs, segmentSize: 1024))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let parent = try context.insert("Parent")
            for value in 0..<5 {
                let child = try context.insert("Child")
                try child.setValue(.int(Int64(value)), forKey: "value")
                try child.setObject(parent, forKey: "parent")
            }
            try context.save()
        }
        try store.checkpoint()
        _ = try store.execute(BatchInsertRequest(entityName: "Parent", objects: [["name": "batch"]]))
        return store
    }

    /// Replaces the Child table of the head and published versions with `edit` applied.
    static func plant(_ store: PersistentStore, _ edit: (inout TableEditor, UInt64) throws -> Void) throws {
        let index = store.layoutIndex["Child"]!
        try store.writer.withLock { state in
            var editor = TableEditor(table: state.head.tables[index])
            try edit(&editor, state.head.lsn)
            var tables = state.head.tables
            tables[index] = editor.table
            state.head = StoreVersion(lsn: state.head.lsn, tables: tables)
            let head = state.head
            store.published.withLock { $0 = head }
        }
    }

    @Test func aHealthyStorePasses() throws {
        try Self.healthyStore().checkInvariants()
    }

    @Test func aDanglingForeignKeyIsReported() throws {
        let store = try Self.healthyStore()
        let parent = store.layouts[store.layoutIndex["Child"]!].propertyIndex["parent"]!
        try Self.plant(store) { editor, lsn in
            var changes = Changeset.EntityChanges()
            changes.updates = [.init(primaryKey: 3, expectedVersion: 0, values: [(parent, .int(4242))])]
            try editor.apply(changes, version: lsn)
        }
        let violation = #expect(throws: InvariantViolation.self) { try store.checkInvariants(replay: false) }
        #expect(violation?.problems.contains { $0.contains("Child 3.parent points at Parent 4242, which does not exist") } == true, "\(String(describing: violation))")
    }

    @Test func memoryThatTheLogDoesNotHaveIsReported() throws {
        let store = try Self.healthyStore()
        try Self.plant(store) { editor, lsn in
            var changes = Changeset.EntityChanges()
            changes.deletes = [.init(primaryKey: 2, expectedVersion: 0)]
            try editor.apply(changes, version: lsn)
        }
        try store.checkInvariants(replay: false)
        let violation = #expect(throws: InvariantViolation.self) { try store.checkInvariants() }
        #expect(violation?.problems.contains { $0.contains("Child 2: present after replay, missing in memory") } == true, "\(String(describing: violation))")
    }

    @Test func aRowVersionAboveTheLSNIsReported() throws {
        let store = try Self.healthyStore()
        let value = store.layouts[store.layoutIndex["Child"]!].propertyIndex["value"]!
        try Self.plant(store) { editor, lsn in
            var changes = Changeset.EntityChanges()
            changes.updates = [.init(primaryKey: 3, expectedVersion: 0, values: [(value, .int(77))])]
            try editor.apply(changes, version: lsn + 10)
        }
        let violation = #expect(throws: InvariantViolation.self) { try store.checkInvariants(replay: false) }
        #expect(violation?.problems.contains { $0.contains("Child 3: row version") } == true, "\(String(describing: violation))")
    }
}
