import Foundation
import Testing
import StrataStorage
import StrataTestSupport
@testable import Strata

/// `Fixtures/v1/library-store`: an object-graph store written by format 1.0 with the schema
/// below, in the bytes Strata wrote before schema evolution existed (no schema history in
/// its snapshot), opened with an evolved schema: every value must come through the
/// migration. Regenerate (only while format 1.0 is unreleased) with
/// `STRATA_WRITE_FIXTURES=1 swift test --skip-build --filter LibraryStoreFixtureTests`.
@Suite struct LibraryStoreFixtureTests {
    static let relativePath = "v1/library-store"

    static func fixturesRoot(file: String = #filePath) -> URL {
        URL(fileURLWithPath: file)
            .deletingLastPathComponent() // Migration
            .deletingLastPathComponent() // StrataTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // the package
            .appendingPathComponent("Fixtures")
    }

    static let v1 = try! Schema {
        Entity("Author") {
            Attribute("name", .string)
            Attribute("born", .date, optional: true)
            Attribute("tag", .uuid, optional: true)
            Attribute("photo", .binary, optional: true)
            Attribute("rating", .double, default: .double(0))
            Attribute("age", .int16, optional: true)
            Attribute("active", .bool, default: .bool(true))
            Relationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .cascade)
        }
        Entity("Book") {
            Attribute("title", .string)
            Attribute("pages", .int32, optional: true)
            Relationship("author", to: "Author", inverse: "books")
        }
    }

    /// The evolved schema: Author renamed Writer, Book.title renamed name, age widened to
    /// int64, pages to double, photo removed, email and language added.
    static let evolved = try! Schema {
        Entity("Writer", originalName: "Author") {
            Attribute("name", .string)
            Attribute("born", .date, optional: true)
            Attribute("tag", .uuid, optional: true)
            Attribute("rating", .double, default: .double(0))
            Attribute("age", .int64, optional: true)
            Attribute("active", .bool, default: .bool(true))
            Attribute("email", .string, optional: true)
            Relationship("books", to: "Book", inverse: "author", toMany: true, deleteRule: .cascade)
        }
        Entity("Book") {
            Attribute("name", .string, originalName: "title")
            Attribute("pages", .double, optional: true)
            Attribute("language", .string, default: .string("en"))
            Relationship("author", to: "Writer", inverse: "books")
        }
    }

    /// Writes the fixture's content: 12 authors with books, a checkpoint, then updates and a
    /// cascading delete in the log after it.
    static func write(_ store: PersistentStore) throws {
        var rng = SplitMix64(seed: 2026)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for a in 1...12 {
                let author = try context.insert("Author")
                try author.setValue(.string("author \(a) ✓"), forKey: "name")
                try author.setValue(a % 4 == 0 ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(rng.next() % 2_000_000_000) - 1e9)), forKey: "born")
                try author.setValue(a % 3 == 0 ? .null : .uuid(UUID(uuid: (UInt8(a), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(rng.next() % 256)))), forKey: "tag")
                try author.setValue(a % 2 == 0 ? .null : .binary(Data((0..<Int(rng.next() % 40)).map { _ in UInt8(rng.next() % 256) })), forKey: "photo")
                try author.setValue(.double(Double(rng.next() % 1000) / 8), forKey: "rating")
                try author.setValue(a % 5 == 0 ? .null : .int(Int64(rng.next() % 120)), forKey: "age")
                try author.setValue(.bool(a % 3 != 1), forKey: "active")
                for b in 0..<Int(a % 4) {
                    let book = try context.insert("Book")
                    try book.setValue(.string("book \(a).\(b)"), forKey: "title")
                    try book.setValue(b == 1 ? .null : .int(Int64(rng.next() % 1200)), forKey: "pages")
                    try book.setObject(author, forKey: "author")
                }
            }
            try context.save()
        }
        try store.checkpoint()
        try context.performAndWait {
            let first = context.object(with: ObjectID(storeID: store.storeID, entityName: "Author", primaryKey: 1))
            try first.setValue(.string("renamed author"), forKey: "name")
            try first.setValue(.int(77), forKey: "age")
            context.delete(context.object(with: ObjectID(storeID: store.storeID, entityName: "Author", primaryKey: 7)))
            try context.save()
        }
    }

    /// The fixture's rows as v1 stores them, recomputed on a simulated disk.
    static func expectedV1() throws -> StoreDump {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: "/store", schema: v1, options: MigrationFixtures.options(fs))
        try write(store)
        defer { try? store.close() }
        return MigrationFixtures.dump(store)
    }

    static func copyOfFixture() throws -> (TemporaryDirectory, String) {
        let source = fixturesRoot().appendingPathComponent(relativePath).path
        try #require(FileManager.default.fileExists(atPath: source), "fixture missing at \(source)")
        let temporary = try TemporaryDirectory(prefix: "strata-fixture")
        let store = temporary.appending("library-store")
        try FileManager.default.copyItem(atPath: source, toPath: store)
        return (temporary, store)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_WRITE_FIXTURES"] == "1"))
    func writeFixture() throws {
        let path = Self.fixturesRoot().appendingPathComponent(Self.relativePath).path
        try? FileManager.default.removeItem(atPath: path)
        var options = PersistentStore.Options()
        options.automaticCheckpointBytes = nil
        let store = try PersistentStore.open(at: path, schema: Self.v1, options: options)
        try Self.write(store)
        try store.close()
    }

    @Test func theFixtureHoldsTheV1Rows() throws {
        let (temporary, path) = try Self.copyOfFixture()
        defer { temporary.remove() }
        let store = try PersistentStore.open(at: path, schema: Self.v1)
        let rows = MigrationFixtures.dump(store)
        #expect(rows == (try Self.expectedV1()))
        // A few literals, so the generator cannot drift along with the fixture.
        #expect(rows["Author"]?.count == 11)
        #expect(rows["Author"]?[1]?["name"] == .string("renamed author"))
        #expect(rows["Author"]?[1]?["age"] == .int(77))
        #expect(rows["Book"]?.count == 15)
        // Its snapshot predates schema history (written as format 1.0 stores were before it).
        #expect(store.schemaHistory.isEmpty)
        try store.close()
    }

    @Test func anEvolvedSchemaOpensTheFixtureAndKeepsEveryValue() throws {
        let (temporary, path) = try Self.copyOfFixture()
        defer { temporary.remove() }
        let before = try Self.expectedV1()
        var expected = before.mapRows("Author") { row in
            row["photo"] = nil
            row["email"] = .null
        }.mapRows("Book") { row in
            row["name"] = row.removeValue(forKey: "title")
            if case .int(let pages)? = row["pages"] { row["pages"] = .double(Double(pages)) }
            row["language"] = .string("en")
        }
        expected["Writer"] = expected.removeValue(forKey: "Author")
        let store = try PersistentStore.open(at: path, schema: Self.evolved)
        #expect(MigrationFixtures.dump(store) == expected)
        #expect(store.schema == Self.evolved.withoutOriginalNames)
        try store.close()
        let reopened = try PersistentStore.open(at: path, schema: Self.evolved)
        #expect(MigrationFixtures.dump(reopened) == expected)
        #expect(reopened.schemaHistory.map(\.lsn) == [4])
        #expect(reopened.schemaHistory.first?.changes.count == 7)
        try reopened.close()
    }
}
