import Dispatch
import Foundation
import Testing
import StrataTestSupport
@testable import StrataStorage

/// The read-ahead of an encrypted snapshot's first scan (`SealedChunkReadAhead`): a decode in
/// file order keeps a worker reading, verifying and opening the next chunks of the table on
/// another thread, the scan decodes what it opened, and a chunk that does not authenticate is
/// never kept, so that its own decode opens it again and throws, as without read-ahead. Each
/// test runs on both kinds of source: the chunks read from the file at each decode (a store's
/// open) and the verified image kept in memory (`keepingImage`).
@Suite(.enabled(if: ProcessInfo.processInfo.activeProcessorCount > 1, "the read-ahead needs a second core"))
struct SealedChunkReadAheadTests {
    static func source(_ fs: SimulatedFileSystem, name: String, keepingImage: Bool) throws -> SnapshotChunkSource {
        let reader = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: DeferredChunkAuthenticationTests.cipher)
        try reader.verifyChecksums(deferringAuthentication: true, keepingImage: keepingImage)
        let source = try #require(reader.takeVerifiedChunks())
        #expect((source.residentBytes > 0) == keepingImage)
        return source
    }

    /// Waits (at most 10 s) until the worker has stopped.
    static func settle(_ readAhead: SealedChunkReadAhead) async throws {
        for _ in 0..<10_000 where readAhead.isRunning { try await Task.sleep(for: .milliseconds(1)) }
        #expect(!readAhead.isRunning, "the read-ahead did not stop")
    }

    @Test(arguments: [false, true])
    func aScanInFileOrderDecodesWhatTheReadAheadOpened(keepingImage: Bool) async throws {
        let fs = SimulatedFileSystem()
        let (name, _) = try EncryptedSnapshotOpenTests.write(fs)
        let source = try Self.source(fs, name: name, keepingImage: keepingImage)
        let readAhead = try #require(source.readAhead)
        #expect(try source.decode(0) == EncryptedSnapshotOpenTests.chunks[0])
        try await Self.settle(readAhead)
        #expect(readAhead.openedAhead == Array(1...SealedChunkReadAhead.window))
        for index in 1..<source.chunks.count {
            #expect(try source.decode(index) == EncryptedSnapshotOpenTests.chunks[index], "chunk \(index)")
            try await Self.settle(readAhead)
        }
        #expect(readAhead.served == source.chunks.count - 1)
        #expect(readAhead.openedAhead.isEmpty)
        // A chunk is handed out once: decoding it again opens it again, and agrees.
        #expect(try source.decode(7) == EncryptedSnapshotOpenTests.chunks[7])
        // A second scan from the first chunk (a count that keeps nothing, or a read of other
        // columns) is read ahead again.
        for index in source.chunks.indices {
            #expect(try source.decode(index) == EncryptedSnapshotOpenTests.chunks[index], "second scan, chunk \(index)")
            try await Self.settle(readAhead)
        }
        #expect(readAhead.served == 2 * (source.chunks.count - 1))
    }

    /// Chunks rewritten together with their checksums, met by the worker before the scan:
    /// the worker keeps nothing of them, and their decode throws that they do not authenticate.
    @Test(arguments: [false, true])
    func aForgedChunkMetByTheReadAheadFailsItsDecode(keepingImage: Bool) async throws {
        let fs = SimulatedFileSystem()
        let (name, bytes) = try EncryptedSnapshotOpenTests.write(fs)
        let original = try SnapshotReader(fileSystem: fs, directory: "/s", name: name, cipher: DeferredChunkAuthenticationTests.cipher)
        let forged = [5, 40]
        fs.setContents(of: "/s/\(name)", to: EncryptedSnapshotOpenTests.alter(bytes, original, chunks: forged))
        let source = try Self.source(fs, name: name, keepingImage: keepingImage)
        let readAhead = try #require(source.readAhead)
        _ = try source.decode(0)
        try await Self.settle(readAhead)
        #expect(readAhead.openedAhead == Array(1...SealedChunkReadAhead.window).filter { $0 != 5 })
        for index in 1..<source.chunks.count {
            if forged.contains(index) {
                let error = #expect(throws: StorageError.self, "chunk \(index)") { _ = try source.decode(index) }
                #expect(error?.code == .corrupted)
                #expect(error?.offset == original.chunks[index].offset)
                #expect(error?.message.contains("chunk #\(index) does not authenticate") == true, "\(error.map(String.init(describing:)) ?? "")")
            } else {
                #expect(try source.decode(index) == EncryptedSnapshotOpenTests.chunks[index], "chunk \(index)")
            }
            try await Self.settle(readAhead)
        }
        #expect(readAhead.served == source.chunks.count - 1 - forged.count)
    }

    /// Two threads scanning the same sealed chunks at once, each in file order: both read
    /// every chunk back unchanged, whichever of them or the worker opened it.
    @Test(arguments: [false, true])
    func twoScansAtOnceReadEveryChunkBack(keepingImage: Bool) throws {
        let fs = SimulatedFileSystem()
        let (name, _) = try EncryptedSnapshotOpenTests.write(fs)
        let source = try Self.source(fs, name: name, keepingImage: keepingImage)
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for index in source.chunks.indices where (try? source.decode(index)) != EncryptedSnapshotOpenTests.chunks[index] {
                mismatches.withLock { $0 += 1 }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    /// A chunk damaged on disk after the worker opened it fails its decode as without
    /// read-ahead: the decode reads and verifies the chunk again before it uses the worker's
    /// plaintext, and a chunk cut short is refused the same way.
    @Test func damageAfterTheReadAheadFailsTheDecode() async throws {
        let fs = SimulatedFileSystem()
        let (name, bytes) = try EncryptedSnapshotOpenTests.write(fs)
        let source = try Self.source(fs, name: name, keepingImage: false)
        let readAhead = try #require(source.readAhead)
        #expect(try source.decode(0) == EncryptedSnapshotOpenTests.chunks[0])
        try await Self.settle(readAhead)
        #expect(readAhead.openedAhead.contains(5) && readAhead.openedAhead.contains(9))
        let fifth = source.chunks[5], ninth = source.chunks[9]
        var damaged = bytes
        damaged[Int(fifth.offset) + fifth.length / 2] ^= 0x04
        damaged[Int(ninth.offset) + 26] ^= 0x01   // the header's checksum field
        fs.setContents(of: "/s/\(name)", to: damaged)
        for index in 1...10 {
            if index == 5 || index == 9 {
                let error = #expect(throws: StorageError.self, "chunk \(index)") { _ = try source.decode(index) }
                #expect(error?.code == .corrupted && error?.offset == source.chunks[index].offset)
            } else {
                #expect(try source.decode(index) == EncryptedSnapshotOpenTests.chunks[index], "chunk \(index)")
            }
        }
        try await Self.settle(readAhead)
        fs.setContents(of: "/s/\(name)", to: Array(bytes[..<Int(source.chunks[20].offset + 10)]))
        let cut = #expect(throws: StorageError.self) { _ = try source.decode(20) }
        #expect(cut?.code == .corrupted)
    }
}
