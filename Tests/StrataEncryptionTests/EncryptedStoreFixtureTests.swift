import Crypto
import Foundation
import Testing
import Strata
import StrataEncryption
@testable import StrataStorage
import StrataTestSupport

/// `Fixtures/v2/encrypted-store`: a store written with `PersistentStore.Options.encryptionKey`
/// (format 2.0 segments and snapshot, docs/FORMAT.md §14), checked in byte for byte so that a
/// change to the encrypted layout, the key derivation, the nonce rule or the associated data
/// that would lock users out of their stores fails the build. Its key is the 32 bytes
/// 0x00…0x1F, also in `Fixtures/v2/encrypted-store.key` as hex for `strata --key-file`.
/// Regenerate (only while format 2.0 is unreleased, see Fixtures/README.md) with
/// `STRATA_WRITE_FIXTURES=1 swift test --skip-build --filter EncryptedStoreFixtureTests`.
@Suite struct EncryptedStoreFixtureTests {
    static let relativePath = "v2/encrypted-store"

    /// The fixture's key (never a key to use for anything else).
    static let key = SymmetricKey(data: (0..<32).map { UInt8($0) })

    /// A string every note's title holds; no file of the fixture may show it.
    static let marker = "FIXTURE-V2-MARKER"

    static let schema = try! Schema {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("body", .string, optional: true)
            Attribute("rank", .int64, default: 0)
            Attribute("score", .double, optional: true)
            Attribute("created", .date, optional: true)
        }
    }

    /// Every fixture file's size and CRC-32C, as written.
    static let files: [String: FixtureFingerprint] = [
        "durable-lsn": FixtureFingerprint(64, 0x38d0_5bbf),
        "last-recovery.json": FixtureFingerprint(215, 0x5ee6_387c),
        "lock": FixtureFingerprint(0, 0x0),
        "snapshot-00000000000000000002.snap": FixtureFingerprint(2109, 0xdf89_aaf8),
        "wal-00000000000000000003.log": FixtureFingerprint(357, 0xf3f5_be2e),
    ]

    static func fixturesRoot(file: String = #filePath) -> URL {
        URL(fileURLWithPath: file)
            .deletingLastPathComponent() // StrataEncryptionTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // the package
            .appendingPathComponent("Fixtures")
    }

    static func options(key: SymmetricKey?, fileSystem: SimulatedFileSystem? = nil) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.encryptionKey = key
        options.automaticCheckpointBytes = nil
        if let fileSystem { options.storage.fileSystem = fileSystem }
        return options
    }

    /// The fixture's content: 40 notes saved through a context and checkpointed (the
    /// snapshot), then an update, a delete and an insert in one save, and a batch update (the
    /// log after it).
    static func write(_ store: PersistentStore) throws {
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for n in 1...40 {
                let note = try context.insert("Note")
                try note.setValue(.string("\(marker) note \(n) ✓"), forKey: "title")
                try note.setValue(n % 3 == 0 ? .null : .string(String(repeating: "body \(n) ", count: n % 7 + 1)), forKey: "body")
                try note.setValue(.int(Int64(n * n - 200)), forKey: "rank")
                try note.setValue(n % 4 == 0 ? .null : .double(Double(n) / 8), forKey: "score")
                try note.setValue(n % 5 == 0 ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(n) * 86_400)), forKey: "created")
            }
            try context.save()
        }
        try store.checkpoint()
        try context.performAndWait {
            let first = context.object(with: ObjectID(storeID: store.storeID, entityName: "Note", primaryKey: 1))
            try first.setValue(.string("\(marker) renamed"), forKey: "title")
            context.delete(context.object(with: ObjectID(storeID: store.storeID, entityName: "Note", primaryKey: 7)))
            let added = try context.insert("Note")
            try added.setValue(.string("\(marker) added after the snapshot"), forKey: "title")
            try context.save()
        }
        _ = try store.execute(BatchUpdateRequest(entityName: "Note", predicate: try ObjectPredicate(format: "rank < 0"),
                                                 propertiesToUpdate: ["rank": .constant(.int(5))]))
    }

    /// Every note's values by primary key.
    static func rows(_ store: PersistentStore) throws -> [Int64: [String: AttributeValue]] {
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            var rows: [Int64: [String: AttributeValue]] = [:]
            for object in try context.fetch(FetchRequest(entityName: "Note")) {
                var values: [String: AttributeValue] = [:]
                for name in ["title", "body", "rank", "score", "created"] {
                    values[name] = try object.value(forKey: name)
                }
                rows[object.objectID.primaryKey] = values
            }
            return rows
        }
    }

    /// The rows the fixture must hold, recomputed on a simulated disk.
    static func expectedRows() throws -> [Int64: [String: AttributeValue]] {
        let store = try PersistentStore.open(at: "/store", schema: schema,
                                             options: options(key: key, fileSystem: SimulatedFileSystem()))
        defer { try? store.close() }
        try write(store)
        return try rows(store)
    }

    static func copyOfFixture() throws -> (TemporaryDirectory, String) {
        let source = fixturesRoot().appendingPathComponent(relativePath).path
        try #require(FileManager.default.fileExists(atPath: source), "fixture missing at \(source)")
        let temporary = try TemporaryDirectory(prefix: "strata-fixture")
        let store = temporary.appending("encrypted-store")
        try FileManager.default.copyItem(atPath: source, toPath: store)
        return (temporary, store)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_WRITE_FIXTURES"] == "1"))
    func writeFixture() throws {
        let path = Self.fixturesRoot().appendingPathComponent(Self.relativePath).path
        try #require(!FileManager.default.fileExists(atPath: path), "\(path) exists: fixtures are never overwritten")
        try FileManager.default.createDirectory(at: Self.fixturesRoot().appendingPathComponent("v2"), withIntermediateDirectories: true)
        let store = try PersistentStore.open(at: path, schema: Self.schema, options: Self.options(key: Self.key))
        try Self.write(store)
        try store.close()
        let hex = (0..<32).map { String(format: "%02x", $0) }.joined()
        try Data("\(hex)\n".utf8).write(to: Self.fixturesRoot().appendingPathComponent("v2/encrypted-store.key"))
        for (name, fingerprint) in try FixtureFingerprint.of(directory: path).sorted(by: { $0.key < $1.key }) {
            print("\"\(name)\": FixtureFingerprint\(fingerprint),")
        }
    }

    @Test func fixtureFilesAreUnchanged() throws {
        let directory = Self.fixturesRoot().appendingPathComponent(Self.relativePath).path
        #expect(try FixtureFingerprint.of(directory: directory) == Self.files)
    }

    @Test func theKeyOpensEveryValueAndTheStoreWritesOn() throws {
        let (temporary, path) = try Self.copyOfFixture()
        defer { temporary.remove() }
        let expected = try Self.expectedRows()
        // A few literals, so the generator cannot drift along with the fixture.
        #expect(expected.count == 40)
        #expect(expected[1]?["title"] == .string("\(Self.marker) renamed"))
        #expect(expected[7] == nil)
        #expect(expected[41]?["title"] == .string("\(Self.marker) added after the snapshot"))
        #expect(expected[2]?["rank"] == .int(5) && expected[20]?["rank"] == .int(200))

        var readOnly = Self.options(key: Self.key)
        readOnly.storage.readOnly = true
        let reader = try PersistentStore.open(at: path, schema: Self.schema, options: readOnly)
        #expect(try Self.rows(reader) == expected)
        try reader.close()

        let store = try PersistentStore.open(at: path, schema: Self.schema, options: Self.options(key: Self.key))
        #expect(try Self.rows(store) == expected)
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("written by today's build")]]))
        try store.checkpoint()
        try store.close()
        let reopened = try PersistentStore.open(at: path, schema: Self.schema, options: Self.options(key: Self.key))
        let rows = try Self.rows(reopened)
        try reopened.close()
        #expect(rows.count == 41 && rows.values.contains { $0["title"] == .string("written by today's build") })
    }

    @Test func itsFilesAreFormatTwoAndHoldNoPlaintext() throws {
        let (temporary, path) = try Self.copyOfFixture()
        defer { temporary.remove() }
        let majors = try EncryptedFormatVersionTests.majors(path)
        #expect(majors.contains { StoreFileNames.snapshotLSN($0.key) != nil })
        #expect(majors.contains { StoreFileNames.segmentLSN($0.key) != nil })
        #expect(majors.values.allSatisfy { $0 == FormatVersion.encryptedMajor }, "\(majors)")
        for needle in [Self.marker, "MARKER", "renamed", "Note", "title"] {
            for (name, bytes) in try EncryptedStoreTests.files(path) where EncryptedStoreTests.contains(bytes, Array(needle.utf8)) {
                Issue.record("\(name) holds \"\(needle)\" in plain text")
            }
        }
    }

    @Test func withoutItsKeyOrWithAnotherItIsRefusedAndUnchanged() throws {
        let (temporary, path) = try Self.copyOfFixture()
        defer { temporary.remove() }
        let before = try EncryptedStoreTests.files(path)
        let none = #expect(throws: StorageError.self) {
            _ = try PersistentStore.open(at: path, schema: Self.schema, options: Self.options(key: nil))
        }
        #expect(none?.code == .encryptionKeyRequired)
        let wrong = #expect(throws: StorageError.self) {
            _ = try PersistentStore.open(at: path, schema: Self.schema, options: Self.options(key: SymmetricKey(size: .bits256)))
        }
        #expect(wrong?.code == .wrongKey)
        #expect(try EncryptedStoreTests.files(path) == before, "a refused open changed the fixture")
    }
}
