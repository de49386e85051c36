import Foundation
import StrataStorage
import StrataTestSupport
import Testing

/// The inspector on an encrypted store one of whose snapshot chunks was rewritten with its
/// checksum recomputed (so only the chunk's GCM tag, checked at its first read, tells): the
/// store opens, every command that reads the chunk exits with the corrupted code (4) naming
/// the snapshot and saying what to do, none crashes, and none changes a file.
@Suite struct ForgedChunkCommandTests {
    /// Flips a ciphertext byte of the snapshot's first chunk and recomputes the chunk's
    /// CRC-32C (the layout of `docs/FORMAT.md` 5.4 and 14.2: an encrypted snapshot's first
    /// chunk starts at byte 72, its payload 28 bytes later). Returns the snapshot's name.
    static func forgeFirstChunk(of store: String) throws -> String {
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: store).first { $0.hasSuffix(".snap") })
        let path = "\(store)/\(name)"
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let start = 72, payload = start + 28
        let stored = (0..<4).reduce(0) { $0 | Int(bytes[start + 12 + $1]) << (8 * $1) }
        bytes[payload + stored / 2] ^= 0x04
        let crc = bytes.withUnsafeBytes { all in
            CRC32C.finalize(CRC32C.update(CRC32C.update(CRC32C.initial, UnsafeRawBufferPointer(rebasing: all[payload..<payload + stored])),
                                          UnsafeRawBufferPointer(rebasing: all[start..<start + 24])))
        }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((start + 24)..<(start + 28), with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return name
    }

    static func files(_ store: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: store) where name.hasSuffix(".snap") || name.hasSuffix(".log") {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: "\(store)/\(name)"))
        }
        return files
    }

    @Test func commandsThatReadTheChunkExitCorruptedAndChangeNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try EncryptionCommandTests.writeKeys(in: directory).hex
        let store = try EncryptionCommandTests.plainStore(in: directory)
        #expect(try Inspector.run(["encrypt", store, "--key-file", key]).status == 0)
        let snapshot = try Self.forgeFirstChunk(of: store)
        let before = try Self.files(store)

        // The open checks checksums only: it succeeds, and so does a command that reads no row.
        let info = try Inspector.run(["info", store, "--key-file", key])
        #expect(info.status == 0, "\(info.stderr)")
        for command in [["count", store, "Person", "--where", "name CONTAINS 'a'"], ["export", store, "Person"],
                        ["query", store, "Person"], ["stats", store], ["checkpoint", store],
                        ["update", store, "Person", "--set", "age=1", "--where", "name CONTAINS 'a'"]] {
            let run = try Inspector.run(command + ["--key-file", key])
            #expect(run.status == 4, "\(command[0]): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(snapshot) && run.stderr.contains("does not authenticate")
                    && run.stderr.contains("restore it from a backup"), "\(command[0]): \(run.stderr)")
        }
        // `verify` authenticates every chunk at once, as before.
        let verify = try Inspector.run(["verify", store, "--key-file", key])
        #expect(verify.status == 4 && (verify.stdout + verify.stderr).contains("does not authenticate"), "\(verify.stdout)\(verify.stderr)")
        #expect(try Self.files(store) == before)
    }
}
