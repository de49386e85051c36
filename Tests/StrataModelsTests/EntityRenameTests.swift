import Foundation
import StrataModels
import StrataTestSupport
import Testing

enum NotesV1 {
    @Model final class Note {
        var text: String
        var pinned: Bool = false
        init(text: String) { self.text = text }
    }
}

enum NotesV2 {
    /// `Note`, renamed: the typed spelling of `Entity(..., originalName:)`.
    @Model final class Memo {
        static var originalEntityName: String? { "Note" }
        var text: String
        var pinned: Bool = false
        init(text: String) { self.text = text }
    }
}

/// A renamed `@Model` class (`static var originalEntityName`): a lightweight migration keeps
/// its rows and primary keys under the new entity name.
@Suite struct EntityRenameTests {
    @Test func originalEntityNameReachesTheSchema() throws {
        #expect(NotesV1.Note.originalEntityName == nil)
        let schema = try Schema(NotesV2.Memo.self)
        #expect(schema.entities.map(\.name) == ["Memo"])
        #expect(schema.entities[0].originalName == "Note")
        #expect(schema.migrationChanges(from: try Schema(NotesV1.Note.self)).map(\.kind) == [.entityRenamed])
    }

    @Test func aRenamedModelKeepsItsRowsAndKeys() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/notes.strata"
        let v1 = try PersistentStore.open(at: path, schema: Schema(NotesV1.Note.self))
        let writer = ObjectContext(store: v1)
        var keys: [String: Int64] = [:]
        try writer.performAndWait {
            for (i, text) in ["milk", "rent", "bike"].enumerated() {
                let note = NotesV1.Note(text: text)
                note.pinned = i == 1
                writer.insert(note)
            }
            try writer.save()
            for note in try writer.fetch(FetchDescriptor<NotesV1.Note>()) { keys[note.text] = note.persistentModelID?.primaryKey }
        }
        try v1.close()

        let store = try PersistentStore.open(at: path, schema: Schema(NotesV2.Memo.self))
        #expect(store.schema.entities.map(\.name) == ["Memo"])
        let reader = ObjectContext(store: store)
        try reader.performAndWait {
            let memos = try reader.fetch(FetchDescriptor<NotesV2.Memo>(sortBy: [SortDescriptor(\.text)]))
            #expect(memos.map(\.text) == ["bike", "milk", "rent"])
            #expect(memos.map(\.pinned) == [false, false, true])
            #expect(memos.map { $0.persistentModelID?.primaryKey } == ["bike", "milk", "rent"].map { keys[$0] })
            #expect(memos.allSatisfy { $0.persistentModelID?.entityName == "Memo" })
        }
        try store.close()
    }
}
