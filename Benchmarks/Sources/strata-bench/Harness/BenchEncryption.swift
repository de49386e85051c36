import Crypto
import Foundation
import StrataStorage

/// Issue 23's dimension of the harness (`strata-bench run --encryption`): the Strata side of a
/// workload measured on plain stores and on stores encrypted at rest
/// (`PersistentStore.Options.encryptionKey`), in the same run.
enum BenchEncryption {
    /// The key of every encrypted run: 32 fixed bytes (0, 1, …, 31), so a child process
    /// (``RSSProbe``) opens the parent's fixture with the same key. A test key, never a secret.
    static let testKey = SymmetricKey(data: (0..<32).map { UInt8($0) })

    /// The key the Strata side being measured opens and creates its stores with, or `nil` for
    /// plain stores. ``StrataFixtures/options`` reads it; the runner binds it around one run.
    @TaskLocal static var key: SymmetricKey?

    /// Whether this process measures encrypted stores.
    static var isOn: Bool { key != nil }

    /// The flags of /proc/cpuinfo that AES-GCM's hardware path needs ("aes", the AES-NI
    /// rounds; "pclmulqdq", carry-less multiplication for GHASH), each with whether the CPU
    /// has it; empty when /proc/cpuinfo cannot be read.
    static func aesFlags() -> [(flag: String, present: Bool)] {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return [] }
        let flags = Set(line.split(separator: " ").map(String.init))
        return ["aes", "pclmulqdq", "avx"].map { ($0, flags.contains($0)) }
    }

    /// Checks that every store the encrypted run left under `directory` is encrypted: each
    /// directory holding a log segment or a snapshot is opened read-only without a key, which
    /// must fail with `encryptionKeyRequired` (an open that fails so changes nothing).
    ///
    /// - Returns: the number of stores checked (0 when the run left none to check).
    /// - Throws: ``PlainStoreInEncryptedRun`` naming a store that opened without a key.
    static func requireEncryptedStores(under directory: URL) throws -> Int {
        var checked = 0
        for store in storeDirectories(under: directory) {
            var options = StorageOptions()
            options.readOnly = true
            options.createIfMissing = false
            do {
                let (engine, _) = try StorageEngine.open(at: store.path, options: options)
                try engine.close()
                throw PlainStoreInEncryptedRun(path: store.path)
            } catch let error as StorageError where error.code == .encryptionKeyRequired {
                checked += 1
            }
        }
        return checked
    }

    /// The directories under `root` (itself included) that hold a log segment or a snapshot.
    private static func storeDirectories(under root: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var directories: Set<String> = []
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            if StoreFileNames.segmentLSN(name) != nil || StoreFileNames.snapshotLSN(name) != nil {
                directories.insert(url.deletingLastPathComponent().path)
            }
        }
        return directories.sorted().map { URL(fileURLWithPath: $0, isDirectory: true) }
    }
}

/// An encrypted run left a store that opens without a key: the workload did not take its
/// options from ``StrataFixtures/options``, so its figure would not be an encrypted one.
struct PlainStoreInEncryptedRun: Error, CustomStringConvertible {
    let path: String

    var description: String {
        "the encrypted run left a plain store at \(path): its workload opens stores without StrataFixtures.options"
    }
}
