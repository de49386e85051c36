import Crypto
import Foundation
import Testing
import Strata
import StrataEncryption
import StrataStorage
import StrataTestSupport

/// `rotateKey(to:)` interrupted at every file-system call it makes: the disk after a process
/// crash, and after a power loss, opens with exactly one of the two keys (the other fails
/// with its typed error and changes nothing), holds every committed row, and once opened with
/// the new key keeps nothing under the old one (after an encryption, no plaintext at all).
///
/// Knob: `STRATA_ROTATION_POWER_SEEDS` (power-loss images per crash point, default 2).
@Suite struct KeyRotationCrashTests {
    static let directory = "/store"
    static let marker = EncryptedStoreTests.marker
    static let keyA = SymmetricKey(data: [UInt8](repeating: 0xA1, count: 32))
    static let keyB = SymmetricKey(data: [UInt8](repeating: 0xB2, count: 32))

    /// The three rotations: encrypt, change the key, decrypt.
    static let transitions: [(String, SymmetricKey?, SymmetricKey?)] = [
        ("encrypt", nil, keyA), ("rotate", keyA, keyB), ("decrypt", keyA, nil),
    ]

    static func options(_ fs: SimulatedFileSystem, _ key: SymmetricKey?, readOnly: Bool = false) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.storage.fileSystem = fs
        options.storage.segmentSize = 4096
        options.storage.readOnly = readOnly
        options.automaticCheckpointBytes = nil
        options.encryptionKey = key
        return options
    }

    /// The titles every run commits before it rotates.
    static let expectedTitles: [String] = ((0..<60).map { "\(marker) \($0)" } + ["after \(marker)", "saved \(marker)"]).sorted()

    /// A store under `key` with a snapshot and several log segments after it, left open.
    static func prepare(_ fs: SimulatedFileSystem, key: SymmetricKey?) throws -> PersistentStore {
        let store = try PersistentStore.open(at: directory, schema: EncryptedStoreTests.schema, options: options(fs, key))
        let rows: [[String: AttributeValue]] = (0..<40).map { ["title": .string("\(marker) \($0)"), "body": .string(String(repeating: "\(marker) body ", count: 20))] }
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: rows))
        try store.checkpoint()
        for batch in 0..<4 {
            let more: [[String: AttributeValue]] = (0..<5).map { ["title": .string("\(marker) \(40 + batch * 5 + $0)"), "body": .string(String(repeating: "\(marker) ", count: 40))] }
            _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: more))
        }
        _ = try store.execute(BatchInsertRequest(entityName: "Note", objects: [["title": .string("after \(marker)")]]))
        let context = ObjectContext(store: store)
        try context.performAndWait {
            let note = try context.insert("Note")
            try note.setValue(.string("saved \(marker)"), forKey: "title")
            try context.save()
        }
        return store
    }

    /// The sorted titles of the store on `fs` opened with `key`.
    static func titles(_ fs: SimulatedFileSystem, _ key: SymmetricKey?, readOnly: Bool) throws -> [String] {
        let store = try PersistentStore.open(at: directory, schema: EncryptedStoreTests.schema, options: options(fs, key, readOnly: readOnly))
        defer { try? store.close() }
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            try context.fetchDictionaries(FetchRequest(entityName: "Note")).compactMap {
                if case .string(let title)? = $0["title"] { return title } else { return nil }
            }.sorted()
        }
    }

    static func files(_ fs: SimulatedFileSystem) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for name in try fs.contentsOfDirectory(directory) { result[name] = fs.contents(of: "\(directory)/\(name)") ?? [] }
        return result
    }

    /// Which key opens `image` (`true`: the new one), after checking everything the rotation
    /// promises of a disk it left.
    static func check(_ image: SimulatedFileSystem, old: SymmetricKey?, new: SymmetricKey?, context: String) -> Bool? {
        func attempt(_ key: SymmetricKey?) -> Result<[String], StorageError> {
            do { return .success(try titles(image, key, readOnly: false)) }
            catch let error as StorageError { return .failure(error) }
            catch { return .failure(StorageError(.io, "\(error)")) }
        }
        let keyCodes: Set<StorageError.Code> = [.wrongKey, .encryptionKeyRequired, .notEncrypted]
        guard let before = try? files(image) else { Issue.record("\(context): cannot list the image"); return nil }
        // Read-only opens first: they change nothing, and set left-overs aside the same way.
        let readOnly = [old, new].map { try? titles(image, $0, readOnly: true) }
        #expect((try? files(image)) == before, "\(context): a read-only open changed the store")
        // Each key first as a writable open: the one that fails must change nothing.
        let oldResult = attempt(old)
        if case .failure(let error) = oldResult {
            #expect(keyCodes.contains(error.code), "\(context): the old key fails with \(error)")
            #expect(error.message.contains("rotat"), "\(context): the message does not mention the rotation: \(error.message)")
            #expect((try? files(image)) == before, "\(context): a failed open with the old key changed the store")
        }
        let afterOld = (try? files(image)) ?? [:]
        let newResult = attempt(new)
        if case .failure(let error) = newResult {
            #expect(keyCodes.contains(error.code), "\(context): the new key fails with \(error)")
            #expect(error.message.contains("rotat"), "\(context): the message does not mention the rotation: \(error.message)")
            #expect((try? files(image)) == afterOld, "\(context): a failed open with the new key changed the store")
        }
        let writable = [oldResult, newResult].map { (try? $0.get()) != nil }
        #expect(readOnly.map { $0 != nil } == writable, "\(context): read-only opens \(readOnly.map { $0 != nil }) disagree with writable ones \(writable)")
        #expect(readOnly.allSatisfy { $0 == nil || $0 == expectedTitles }, "\(context): a read-only open lost committed rows")
        switch (oldResult, newResult) {
        case (.success(let titles), .failure):
            #expect(titles == expectedTitles, "\(context): the old key lost committed rows (\(titles.count) of \(expectedTitles.count))")
            return false
        case (.failure, .success(let titles)):
            #expect(titles == expectedTitles, "\(context): the new key lost committed rows (\(titles.count) of \(expectedTitles.count))")
            // The open removed what the old key left: the store is wholly under the new key.
            #expect((try? Self.titles(image, new, readOnly: true)) == expectedTitles, "\(context): reopening with the new key")
            do {
                _ = try Self.titles(image, old, readOnly: true)
                Issue.record("\(context): the old key still opens the store after it was opened with the new key")
            } catch let error as StorageError {
                #expect(!error.message.contains("switched to its new key"), "\(context): files under the old key survived a writable open with the new key")
            } catch {
                Issue.record("\(context): \(error)")
            }
            if new != nil, let after = try? files(image) {
                for (name, bytes) in after where EncryptedStoreTests.contains(bytes, Array("MARKER-7f3e".utf8)) {
                    Issue.record("\(context): \(name) holds the marker in plain text after the encryption")
                }
            }
            return true
        case (.success, .success):
            Issue.record("\(context): both keys open the store")
        case (.failure(let a), .failure(let b)):
            Issue.record("\(context): neither key opens the store (\(a.message) / \(b.message))")
        }
        return nil
    }

    @Test(arguments: 0..<3)
    func aRotationInterruptedAtAnyCallOpensWithOneKeyAndLosesNothing(transition: Int) throws {
        let (name, old, new) = Self.transitions[transition]
        let seeds = testKnob("STRATA_ROTATION_POWER_SEEDS", default: 2)
        // A clean run gives the calls the rotation makes.
        let clean = SimulatedFileSystem()
        let store = try Self.prepare(clean, key: old)
        let start = clean.callCount
        try store.rotateKey(to: new)
        let calls = clean.callCount - start
        try store.close()
        #expect(try Self.titles(clean, new, readOnly: false) == Self.expectedTitles)
        #expect(Self.check(clean.processCrashImage(), old: old, new: new, context: "\(name), completed") == true)

        var firstNew: Int?
        for point in 1...(calls + 1) {
            let fs = SimulatedFileSystem()
            let store = try Self.prepare(fs, key: old)
            #expect(fs.callCount == start, "\(name): the workload is not deterministic")
            fs.crash(atCall: start + point)
            let completed = (try? store.rotateKey(to: new)) != nil
            let context = "\(name), crash at call \(point) of \(calls)"
            let opened = Self.check(fs.processCrashImage(), old: old, new: new, context: context + " (process crash)")
            if completed { #expect(opened == true, "\(context): a rotation that returned does not open with the new key") }
            if opened == true, firstNew == nil { firstNew = point }
            if let firstNew, point > firstNew { #expect(opened == true, "\(context): the old key opens again after the new one did at call \(firstNew)") }
            for seed in 0..<UInt64(seeds) {
                _ = Self.check(fs.powerLossImage(seed: seed &+ UInt64(point) &* 131), old: old, new: new,
                               context: context + " (power loss, seed \(seed))")
            }
        }
        print("key rotation (\(name)): \(calls) calls; after a process crash the old key opens up to call \((firstNew ?? calls + 1) - 1), the new key from call \(firstNew.map(String.init) ?? "never"); \(seeds) power-loss images per point")
    }
}
