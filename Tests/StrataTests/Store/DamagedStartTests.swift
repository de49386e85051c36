import Foundation
import Testing
import StrataTestSupport
import StrataStorage
@testable import Strata

/// Issue 16: a store whose only log segment is cut inside its header or its first frame
/// (the schema) used to be reported as "new and empty". It is reported as damaged.
@Suite struct DamagedStartTests {
    static let schema = { () -> Schema in
        try! Schema { Entity("Item") { Attribute("name", .string) } }
    }()

    /// A closed store at `path` with three items, its only segment cut to `bytes` bytes.
    static func cutStore(at path: String, keeping bytes: Int, forgetMarker: Bool) throws {
        let store = try PersistentStore.open(at: path, schema: schema)
        let context = ObjectContext(store: store)
        try context.performAndWait {
            for n in 0..<3 { try context.insert("Item").setValue(.string("item \(n)"), forKey: "name") }
            try context.save()
        }
        try store.close()
        let segment = "\(path)/\(StoreFileNames.segment(firstLSN: 1))"
        let data = try Data(contentsOf: URL(fileURLWithPath: segment))
        try data.prefix(bytes).write(to: URL(fileURLWithPath: segment))
        if forgetMarker { try FileManager.default.removeItem(atPath: "\(path)/durable-lsn") }
    }

    @Test(arguments: [20, 50], [false, true])
    func cutBeforeTheSchemaIsDamageNotANewStore(keeping bytes: Int, forgetMarker: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "strata-damaged-start")
        defer { directory.remove() }
        let path = directory.appending("store")
        try Self.cutStore(at: path, keeping: bytes, forgetMarker: forgetMarker)
        var readOnly = PersistentStore.Options()
        readOnly.storage.readOnly = true
        let error = #expect(throws: StorageError.self) { _ = try PersistentStore.open(at: path, options: readOnly) }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("new and empty") == false)
    }
}
