import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// Every row of a store, by entity name and primary key: each stored property's value (a
/// to-one relationship as the destination's key).
typealias StoreDump = [String: [Int64: [String: AttributeValue]]]

enum MigrationFixtures {
    static let directory = "/store"

    static func options(_ fs: SimulatedFileSystem) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.storage.fileSystem = fs
        options.automaticCheckpointBytes = nil
        return options
    }

    static func dump(_ store: PersistentStore) -> StoreDump {
        let version = store.currentVersion
        var result: StoreDump = [:]
        for layout in store.layouts {
            var rows: [Int64: [String: AttributeValue]] = [:]
            for chunk in version.tables[layout.index].chunks {
                for (row, key) in chunk.primaryKeys.enumerated() {
                    var values: [String: AttributeValue] = [:]
                    for (p, property) in layout.properties.enumerated() {
                        values[property.name] = chunk.value(at: row, layout.columnAccess[p])
                    }
                    rows[key] = values
                }
            }
            result[layout.entity.name] = rows
        }
        return result
    }

    /// The log segments' bytes: what a refused migration must leave unchanged.
    static func logBytes(_ fs: SimulatedFileSystem) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for name in try fs.contentsOfDirectory(directory) where name.hasPrefix("wal-") || name.hasPrefix("snapshot-") {
            result[name] = fs.contents(of: "\(directory)/\(name)")
        }
        return result
    }

    /// Library v1: Author (name, age int16?, rating int32, nickname?) ⟷ Book (title, pages
    /// int32?, author).
    static let v1 = try! Schema {
        Entity("Author") {
            Attribute("name", .string)
            Attribute("age", .int16, optional: true)
            Attribute("rating", .int32, default: .int(0))
            Attribute("nickname", .string, optional: true)
            Relationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .cascade)
        }
        Entity("Book") {
            Attribute("title", .string)
            Attribute("pages", .int32, optional: true)
            Relationship("author", to: "Author", inverse: "books")
        }
    }

    /// Fills a v1 store: 30 authors, some with nils, each with 0–3 books.
    static func populate(_ store: PersistentStore, seed: UInt64 = 7) throws {
        var rng = SplitMix64(seed: seed)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for a in 0..<30 {
                let author = try context.insert("Author")
                try author.setValue(.string("author \(a)"), forKey: "name")
                try author.setValue(a % 3 == 0 ? .null : .int(Int64(rng.next() % 100)), forKey: "age")
                try author.setValue(.int(Int64(rng.next() % 1000)), forKey: "rating")
                try author.setValue(a % 2 == 0 ? .null : .string("nick \(a)"), forKey: "nickname")
                for b in 0..<Int(rng.next() % 4) {
                    let book = try context.insert("Book")
                    try book.setValue(.string("book \(a).\(b)"), forKey: "title")
                    try book.setValue(b == 1 ? .null : .int(Int64(rng.next() % 900)), forKey: "pages")
                    try book.setObject(author, forKey: "author")
                }
            }
            try context.save()
        }
    }

    /// Creates a v1 store on a fresh simulated disk, fills it, closes it; with `checkpointed`,
    /// after a checkpoint, so that the next open reads the rows from a snapshot (undecoded
    /// chunks, which a migration maps without reading) rather than from the log.
    static func makeStore(_ schema: Schema = v1, seed: UInt64 = 7, checkpointed: Bool = false) throws -> (SimulatedFileSystem, StoreDump) {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: directory, schema: schema, options: options(fs))
        try populate(store, seed: seed)
        let before = dump(store)
        if checkpointed { try store.checkpoint() }
        try store.close()
        return (fs, before)
    }

    /// Opens `fs`'s store with `schema` (migrating it), checks that a reopen from the log
    /// and one from a snapshot give the same rows, and returns them.
    static func migrate(_ fs: SimulatedFileSystem, to schema: Schema,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> StoreDump {
        let store = try PersistentStore.open(at: directory, schema: schema, options: options(fs))
        let after = dump(store)
        let migratedAt = store.lastLSN
        // The stored schema is the new one, but for defaults, validation and delete rules
        // when nothing else changed (they are the app's, and no migration is recorded).
        #expect(!schema.migrationChanges(from: store.schema).contains(where: PersistentStore.needsRecord),
                sourceLocation: sourceLocation)
        try store.close()
        let replayed = try PersistentStore.open(at: directory, schema: schema, options: options(fs))
        #expect(dump(replayed) == after, "replaying the migration record differs", sourceLocation: sourceLocation)
        #expect(replayed.lastLSN == migratedAt, "reopening with the same schema migrated again", sourceLocation: sourceLocation)
        try replayed.checkpoint()
        try replayed.close()
        let fromSnapshot = try PersistentStore.open(at: directory, schema: schema, options: options(fs))
        #expect(dump(fromSnapshot) == after, "the snapshot after the migration differs", sourceLocation: sourceLocation)
        try fromSnapshot.close()
        return after
    }

    static func edit(_ schema: Schema, entity: String, _ body: (inout Entity) -> Void) -> Schema {
        var copy = schema
        let index = copy.entities.firstIndex { $0.name == entity }!
        body(&copy.entities[index])
        return copy
    }
}

/// The same changes applied to a ``StoreDump`` (the in-memory model of the data).
extension Dictionary where Key == String, Value == [Int64: [String: AttributeValue]] {
    func mapRows(_ entity: String, _ body: (inout [String: AttributeValue]) -> Void) -> Self {
        var copy = self
        copy[entity] = copy[entity]!.mapValues { row in
            var row = row
            body(&row)
            return row
        }
        return copy
    }
}
