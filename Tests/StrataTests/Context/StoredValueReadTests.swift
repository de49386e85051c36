import Foundation
import Testing
@testable import Strata

/// Values read in place from a stored row (a fault's hint, a fired fault's row in its chunk)
/// equal the values saved, for every kind of column and for nulls: the read through a pointer
/// into the chunk's decoded columns (`ColumnChunk.value(in:at:type:)`), strings included,
/// before a save and after a checkpoint and a reopen (chunks decoded on first read).
@Suite struct StoredValueReadTests {
    static let schema = try! Schema {
        Entity("Shelf") {
            Attribute("label", .string)
            Relationship("notes", to: "Note", inverse: "shelf", toMany: true)
        }
        Entity("Note") {
            Attribute("title", .string)
            Attribute("subtitle", .string, optional: true)
            Attribute("body", .binary, optional: true)
            Attribute("tag", .uuid, optional: true)
            Attribute("at", .date, optional: true)
            Attribute("count", .int64, optional: true)
            Attribute("done", .bool, optional: true)
            Relationship("shelf", to: "Shelf", inverse: "notes")
        }
    }

    /// The values note `n` is saved with: every third one's optional values are null, and
    /// the titles include an empty, a long and a non-ASCII string.
    static func values(_ n: Int) -> [String: AttributeValue] {
        let titles = ["", "a", "héllo wörld ✓", String(repeating: "long title ", count: 20)]
        let null = n % 3 == 0
        return [
            "title": .string(titles[n % titles.count] + "\(n)"),
            "subtitle": null ? .null : .string("subtitle \(n)"),
            "body": null ? .null : .binary(Data((0..<UInt8(n % 7)).map { $0 &* 31 })),
            "tag": null ? .null : .uuid(UUID(uuid: (UInt8(n), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))),
            "at": null ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(n) * 1.5)),
            "count": null ? .null : .int(Int64(n) - 50),
            "done": null ? .null : .bool(n % 2 == 0),
        ]
    }

    static let keys = ["title", "subtitle", "body", "tag", "at", "count", "done"]

    @Test func storedValuesReadThroughARelationshipAndAFetchEqualTheSavedOnes() throws {
        let fixture = try StoreFixture(Self.schema)
        defer { fixture.remove() }
        let count = 40
        let writer = fixture.context()
        try writer.performAndWait {
            let context = writer
            let shelf = try context.insert("Shelf")
            try shelf.setValue(.string("shelf"), forKey: "label")
            for n in 0..<count {
                let note = try context.insert("Note")
                for (key, value) in Self.values(n) { try note.setValue(value, forKey: key) }
                try note.setObject(shelf, forKey: "shelf")
            }
            try context.save()
        }
        func check(_ store: PersistentStore) throws {
            let context = ObjectContext(store: store)
            try context.performAndWait {
                let shelf = try #require(try context.fetch(FetchRequest(entityName: "Shelf")).first)
                let related = try shelf.objects(forKey: "notes")
                #expect(related.count == count)
                for (n, note) in related.enumerated() {
                    #expect(note.isFault)
                    for key in Self.keys { #expect(try note.value(forKey: key) == Self.values(n)[key], "\(key) of note \(n)") }
                    #expect(try note.string("title") == Self.values(n)["title"].flatMap { if case .string(let s) = $0 { s } else { nil } })
                }
            }
            let fetching = ObjectContext(store: store)
            try fetching.performAndWait {
                let notes = try fetching.fetch(FetchRequest(entityName: "Note"))
                for (n, note) in notes.enumerated() {
                    for key in Self.keys.reversed() { #expect(try note.value(forKey: key) == Self.values(n)[key], "\(key) of note \(n)") }
                }
            }
        }
        try check(fixture.store)
        try fixture.store.checkpoint()
        try check(try fixture.reopen())
    }
}
