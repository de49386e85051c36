import Crypto
import Testing
import Strata
import StrataEncryption
import StrataStorage
import StrataTestSupport

/// A read-only store following the writer of an encrypted store decrypts what it follows.
@Suite struct EncryptedFollowerTests {
    @Test func aReadOnlyStoreFollowsAnEncryptedWriter() throws {
        let directory = try TemporaryDirectory(prefix: "strata-crypt")
        defer { directory.remove() }
        let key = SymmetricKey(size: .bits256)
        let writer = try PersistentStore.open(at: directory.path, schema: EncryptedStoreTests.schema,
                                              options: EncryptedStoreTests.options(key))
        defer { try? writer.close() }
        _ = try writer.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("first")]]))

        var readOnly = PersistentStore.Options.readOnly
        readOnly.encryptionKey = key
        let reader = try PersistentStore.open(at: directory.path, options: readOnly)
        defer { try? reader.close() }
        _ = try writer.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("second")], ["title": .string("third")]]))
        #expect(try reader.refresh() == 1)
        let context = ObjectContext(store: reader)
        let count = try context.performAndWait {
            try context.fetchDictionaries(FetchRequest(entityName: "Note")).count
        }
        #expect(count == 3)

        var keyless = PersistentStore.Options.readOnly
        keyless.encryptionKey = nil
        let error = #expect(throws: StorageError.self) { _ = try PersistentStore.open(at: directory.path, options: keyless) }
        #expect(error?.code == .encryptionKeyRequired)
    }
}
