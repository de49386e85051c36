import Testing
import Foundation
import StrataTestSupport
@testable import StrataStorage

@Suite struct GroupCommitTests {
    @Test(arguments: [Durability.always, .everySecond, .never])
    func concurrentCommittersGetUniqueOrderedLSNs(durability: Durability) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var options = StorageOptions()
        options.durability = durability
        options.segmentSize = 64 * 1024
        let (engine, _) = try StorageEngine.open(at: directory.path, options: options)
        let perThread = 200, threads = 8
        let results = LockedArray()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<perThread {
                let payload = Array("t\(thread)-\(i)".utf8)
                let lsn = try! engine.append(kind: 1, payload: payload)
                results.append((lsn, payload))
            }
        }
        try engine.close()
        let committed = results.values.sorted { $0.0 < $1.0 }
        #expect(committed.map(\.0) == Array(1...UInt64(threads * perThread)))
        let (_, recovered) = try StorageEngine.open(at: directory.path, options: options)
        #expect(recovered.records.map(\.lsn) == committed.map(\.0))
        #expect(recovered.records.map(\.payload) == committed.map(\.1))
    }

    @Test func filesAreOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.appending("store")
        let (engine, _) = try StorageEngine.open(at: store)
        _ = try engine.append(kind: 1, payload: [1])
        try engine.close()
        let attributes = try FileManager.default.attributesOfItem(atPath: store)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: store) {
            let file = try FileManager.default.attributesOfItem(atPath: "\(store)/\(name)")
            #expect((file[.posixPermissions] as? Int) == 0o600, "\(name)")
        }
    }
}

/// An array appended to from several threads.
final class LockedArray: Sendable {
    private let storage = Locked<[(UInt64, [UInt8])]>([])
    func append(_ value: (UInt64, [UInt8])) { storage.withLock { $0.append(value) } }
    var values: [(UInt64, [UInt8])] { storage.withLock { $0 } }
}
