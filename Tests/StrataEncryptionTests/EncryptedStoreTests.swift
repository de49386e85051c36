import Crypto
import Foundation
import Testing
import Strata
import StrataEncryption
import StrataStorage
import StrataTestSupport

/// A store opened with `PersistentStore.Options.encryptionKey`: nothing readable on disk, the
/// same data back with the key, and typed errors (changing nothing) without it.
@Suite struct EncryptedStoreTests {
    static let marker = "STRATA-MARKER-7f3e9c1a"

    static let schema = try! Schema {
        Entity("Note") {
            Attribute("title", .string)
            Attribute("body", .string, optional: true)
            Attribute("rank", .int64, default: 0)
        }
    }

    static func options(_ key: SymmetricKey?) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.encryptionKey = key
        return options
    }

    /// Writes notes whose title and body hold the marker, checkpoints (a snapshot), writes
    /// more (the log after it), and closes.
    static func fill(_ path: String, key: SymmetricKey?) throws {
        let store = try PersistentStore.open(at: path, schema: schema, options: options(key))
        let rows: [[String: AttributeValue]] = (0..<300).map {
            ["title": .string("\(marker) \($0)"), "body": .string(String(repeating: "\(marker) body ", count: $0 % 5 + 1)), "rank": .int(Int64($0))]
        }
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: rows))
        try store.checkpoint()
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("after \(marker)")]]))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let note = try context.insert("Note")
            try note.setValue(.string("saved \(marker)"), forKey: "title")
            try context.save()
        }
        try store.close()
    }

    static func titles(_ path: String, key: SymmetricKey?) throws -> [String] {
        let store = try PersistentStore.open(at: path, schema: schema, options: options(key))
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            try context.fetchDictionaries(FetchRequest(entityName: "Note")).compactMap {
                if case .string(let title)? = $0["title"] { return title } else { return nil }
            }.sorted()
        }
    }

    /// Every file's bytes, by name.
    static func files(_ path: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            result[name] = Array(try Data(contentsOf: URL(fileURLWithPath: "\(path)/\(name)")))
        }
        return result
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start] == needle[0] && Array(haystack[start..<start + needle.count]) == needle
        }
    }

    @Test func noFileOfAnEncryptedStoreHoldsThePlaintext() throws {
        let key = SymmetricKey(size: .bits256)
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        try Self.fill(directory.path, key: key)
        let files = try Self.files(directory.path)
        #expect(files.keys.contains { StoreFileNames.snapshotLSN($0) != nil })
        #expect(files.keys.contains { StoreFileNames.segmentLSN($0) != nil })
        // The marker, and a fragment short enough to survive LZ4 as a literal run.
        for needle in [Self.marker, "MARKER-7f3e", "Note", "title"] {
            for (name, bytes) in files where Self.contains(bytes, Array(needle.utf8)) {
                Issue.record("\(name) holds \"\(needle)\" in plain text")
            }
        }
        let titles = try Self.titles(directory.path, key: key)
        #expect(titles.count == 302 && titles.contains("saved \(Self.marker)") && titles.contains("after \(Self.marker)"))
    }

    /// The grep above can fail: a plain store has the marker in its files.
    @Test func thePlainStoreHoldsTheMarker() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        try Self.fill(directory.path, key: nil)
        #expect(try Self.files(directory.path).values.contains { Self.contains($0, Array(Self.marker.utf8)) })
    }

    @Test func aWrongKeyIsWrongKeyAndChangesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        let key = SymmetricKey(size: .bits256)
        try Self.fill(directory.path, key: key)
        // A torn tail and a leftover temporary snapshot: a writable open would change both.
        let segment = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { StoreFileNames.segmentLSN($0) != nil }.sorted().last!
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.appending(segment)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3, 4, 5]))
        try handle.close()
        #expect(FileManager.default.createFile(atPath: directory.appending("snapshot-00000000000000000099.snap.tmp"), contents: Data([9])))
        let before = try Self.files(directory.path)

        let wrong = #expect(throws: StorageError.self) { _ = try Self.titles(directory.path, key: SymmetricKey(size: .bits256)) }
        #expect(wrong?.code == .wrongKey)
        #expect(wrong?.message.contains("another key") == true)
        #expect(try Self.files(directory.path) == before, "a failed open changed the store")

        let none = #expect(throws: StorageError.self) { _ = try Self.titles(directory.path, key: nil) }
        #expect(none?.code == .encryptionKeyRequired)
        #expect(try Self.files(directory.path) == before)

        // The right key opens it (cutting the torn tail).
        #expect(try Self.titles(directory.path, key: key).count == 302)
    }

    @Test func aKeyForAPlainStoreIsNotEncrypted() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        try Self.fill(directory.path, key: nil)
        let before = try Self.files(directory.path)
        let error = #expect(throws: StorageError.self) { _ = try Self.titles(directory.path, key: SymmetricKey(size: .bits256)) }
        #expect(error?.code == .notEncrypted)
        #expect(try Self.files(directory.path) == before)
    }

    @Test func aKeyThatIsNot256BitsIsRefused() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        let error = #expect(throws: StorageError.self) { _ = try Self.titles(directory.path, key: SymmetricKey(size: .bits128)) }
        #expect(error?.code == .invalidArgument)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// History segments are not encrypted: asking for them with a key is refused up front.
    @Test func persistentHistoryIsRefusedOnAnEncryptedStore() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        var options = Self.options(SymmetricKey(size: .bits256))
        options.persistentHistory = .untilPurged
        let error = #expect(throws: StorageError.self) {
            _ = try PersistentStore.open(at: directory.path, schema: Self.schema, options: options)
        }
        #expect(error?.code == .invalidArgument && error?.message.contains("history") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func dataComesBackFromSnapshotAndLogAcrossReopens() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        let key = SymmetricKey(size: .bits256)
        try Self.fill(directory.path, key: key)
        let first = try Self.titles(directory.path, key: key)
        let second = try Self.titles(directory.path, key: key)
        #expect(first == second && first.count == 302)
    }
}
