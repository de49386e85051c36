import Crypto
import Foundation
import Testing
import Strata
import StrataEncryption
import StrataStorage
import StrataTestSupport

/// `rotateKey(to:)` on real files: the data stays, later saves go under the new key, the old
/// key no longer opens the store, and encrypting leaves no plaintext behind.
@Suite struct KeyRotationTests {
    typealias Fixture = EncryptedStoreTests

    static func storeFiles(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { StoreFileNames.segmentLSN($0) != nil || StoreFileNames.snapshotLSN($0) != nil }.sorted()
    }

    @Test func aNewKeyKeepsEveryRowAndTheOldKeyNoLongerOpens() throws {
        let directory = try TemporaryDirectory(prefix: "strata-rotate")
        defer { directory.remove() }
        let old = SymmetricKey(size: .bits256), new = SymmetricKey(size: .bits256)
        try Fixture.fill(directory.path, key: old)
        let store = try PersistentStore.open(at: directory.path, schema: Fixture.schema, options: Fixture.options(old))
        let lsn = try store.rotateKey(to: new)
        #expect(lsn == store.lastLSN)
        // A save after the rotation, and a checkpoint: both under the new key.
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let note = try context.insert("Note")
            try note.setValue(.string("rotated \(Fixture.marker)"), forKey: "title")
            try context.save()
        }
        try store.checkpoint()
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("last")]]))
        try store.close()

        let titles = try Fixture.titles(directory.path, key: new)
        #expect(titles.count == 304 && titles.contains("rotated \(Fixture.marker)") && titles.contains("last"))
        let before = try Fixture.files(directory.path)
        let error = #expect(throws: StorageError.self) { _ = try Fixture.titles(directory.path, key: old) }
        #expect(error?.code == .wrongKey)
        #expect(error?.message.contains("try the other") == true)
        #expect(try Fixture.files(directory.path) == before)
        for (name, bytes) in before where Fixture.contains(bytes, Array("MARKER-7f3e".utf8)) {
            Issue.record("\(name) holds the marker in plain text")
        }
    }

    @Test func encryptingAPlainStoreLeavesNoPlaintextAndDecryptingBringsItBack() throws {
        let directory = try TemporaryDirectory(prefix: "strata-rotate")
        defer { directory.remove() }
        let key = SymmetricKey(size: .bits256)
        try Fixture.fill(directory.path, key: nil)
        let expected = try Fixture.titles(directory.path, key: nil)
        var store = try PersistentStore.open(at: directory.path, schema: Fixture.schema, options: Fixture.options(nil))
        try store.rotateKey(to: key)
        try store.close()
        // One snapshot and one (empty) segment, both under the key.
        #expect(try Self.storeFiles(directory.path).count == 2)
        for (name, bytes) in try Fixture.files(directory.path) where Fixture.contains(bytes, Array("MARKER-7f3e".utf8)) {
            Issue.record("\(name) holds the marker in plain text after the encryption")
        }
        #expect(try Fixture.titles(directory.path, key: key) == expected)
        let plain = #expect(throws: StorageError.self) { _ = try Fixture.titles(directory.path, key: nil) }
        #expect(plain?.code == .encryptionKeyRequired)

        store = try PersistentStore.open(at: directory.path, schema: Fixture.schema, options: Fixture.options(key))
        try store.rotateKey(to: nil)
        try store.close()
        #expect(try Fixture.titles(directory.path, key: nil) == expected)
        let keyed = #expect(throws: StorageError.self) { _ = try Fixture.titles(directory.path, key: key) }
        #expect(keyed?.code == .notEncrypted)
    }

    /// History segments are not encrypted: a store that keeps history stays plain.
    @Test func encryptingAStoreThatKeepsHistoryIsRefused() throws {
        let directory = try TemporaryDirectory(prefix: "strata-rotate")
        defer { directory.remove() }
        var options = Fixture.options(nil)
        options.persistentHistory = .untilPurged
        let store = try PersistentStore.open(at: directory.path, schema: Fixture.schema, options: options)
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string(Fixture.marker)]]))
        let error = #expect(throws: StorageError.self) { try store.rotateKey(to: SymmetricKey(size: .bits256)) }
        #expect(error?.code == .invalidArgument && error?.message.contains("history") == true)
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("still plain")]]))
        try store.close()
        // Opened without history, the history files are still there: refused too.
        let reopened = try PersistentStore.open(at: directory.path, schema: Fixture.schema, options: Fixture.options(nil))
        #expect(throws: StorageError.self) { try reopened.rotateKey(to: SymmetricKey(size: .bits256)) }
        try reopened.close()
        #expect(try Fixture.titles(directory.path, key: nil).count == 2)
    }

    @Test func aKeyThatIsNot256BitsIsRefusedAndChangesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "strata-rotate")
        defer { directory.remove() }
        let key = SymmetricKey(size: .bits256)
        try Fixture.fill(directory.path, key: key)
        let store = try PersistentStore.open(at: directory.path, schema: Fixture.schema, options: Fixture.options(key))
        let before = try Self.storeFiles(directory.path)
        let error = #expect(throws: StorageError.self) { try store.rotateKey(to: SymmetricKey(size: .bits128)) }
        #expect(error?.code == .invalidArgument)
        #expect(try Self.storeFiles(directory.path) == before)
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("after")]]))
        try store.close()
        #expect(try Fixture.titles(directory.path, key: key).count == 303)
    }

    /// A segment under the other key that the rotation's snapshot does not cover is not a
    /// left-over: the open refuses with either key rather than mix two histories.
    @Test func aSegmentUnderTheOtherKeyBeyondTheSnapshotIsNeverMixedIn() throws {
        let directory = "/store"
        let a = AESGCMStoreCipher(key: SymmetricKey(data: [UInt8](repeating: 1, count: 32)))
        let b = AESGCMStoreCipher(key: SymmetricKey(data: [UInt8](repeating: 2, count: 32)))
        func options(_ fs: SimulatedFileSystem, _ cipher: AESGCMStoreCipher) -> StorageOptions {
            var options = StorageOptions()
            options.fileSystem = fs
            options.cipher = cipher
            return options
        }
        // Another log under key A with a segment starting at LSN 5 (each open starts one).
        let other = SimulatedFileSystem()
        for count in [4, 1] {
            let (engine, _) = try StorageEngine.open(at: directory, options: options(other, a))
            for _ in 0..<count { _ = try engine.append(kind: 1, payload: [1, 2, 3]) }
            try engine.close()
        }
        let foreign = StoreFileNames.segment(firstLSN: 5)
        let bytes = try #require(other.contents(of: "\(directory)/\(foreign)"))
        // The store: three transactions under A, rotated to B at LSN 3.
        let fs = SimulatedFileSystem()
        let (engine, _) = try StorageEngine.open(at: directory, options: options(fs, a))
        for _ in 0..<3 { _ = try engine.append(kind: 1, payload: [4, 5, 6]) }
        #expect(try engine.rotateKey(to: b, tables: [], metadata: [], fill: { _ in }) == 3)
        try engine.close()
        let handle = try fs.open("\(directory)/\(foreign)", mode: .createNew)
        try handle.writeAll(bytes, at: 0)
        try handle.close()
        try fs.syncDirectory(directory)
        let before = try fs.contentsOfDirectory(directory).sorted().map { fs.contents(of: "\(directory)/\($0)") ?? [] }
        for cipher in [b, a] {
            let error = #expect(throws: StorageError.self) { _ = try StorageEngine.open(at: directory, options: options(fs, cipher)) }
            #expect(error?.code == .wrongKey)
        }
        #expect(try fs.contentsOfDirectory(directory).sorted().map { fs.contents(of: "\(directory)/\($0)") ?? [] } == before)
        // Without it, B opens the store and A does not.
        try fs.remove("\(directory)/\(foreign)")
        let (reopened, state) = try StorageEngine.open(at: directory, options: options(fs, b))
        #expect(state.snapshot?.lsn == 3 && state.records.isEmpty)
        try reopened.close()
    }
}
