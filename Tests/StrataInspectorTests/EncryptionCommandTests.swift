import Foundation
import StrataTestSupport
import Testing

/// `--key-file` on the inspector's commands, and `strata encrypt` / `decrypt` / `rotate-key`.
@Suite struct EncryptionCommandTests {
    /// A key as 64 hex characters and a newline, another as 32 raw bytes.
    static func writeKeys(in directory: TemporaryDirectory) throws -> (hex: String, raw: String) {
        let hex = directory.appending("hex.key"), raw = directory.appending("raw.key")
        try (String(repeating: "0f1e2d3c4b5a6978", count: 4) + "\n").write(toFile: hex, atomically: true, encoding: .utf8)
        try Data((0..<32).map { UInt8($0 &* 7 &+ 3) }).write(to: URL(fileURLWithPath: raw))
        return (hex, raw)
    }

    /// A plain store with the five fixture people and a checkpoint, plus one more row.
    static func plainStore(in directory: TemporaryDirectory) throws -> String {
        let store = directory.appending("people.strata")
        #expect(try Inspector.run(["create", store, "--schema", "\(Inspector.fixtures)/schema.json"]).status == 0)
        #expect(try Inspector.run(["import", store, "Person", "\(Inspector.fixtures)/people.jsonl"]).status == 0)
        #expect(try Inspector.run(["checkpoint", store]).status == 0)
        #expect(try Inspector.run(["update", store, "Person", "--set", "age=99", "--where", "name BEGINSWITH 'Grace'"]).status == 0)
        return store
    }

    /// Whether any file of `store` holds `text` in plain bytes.
    static func holds(_ store: String, _ text: String) throws -> Bool {
        let needle = Data(text.utf8)
        return try FileManager.default.contentsOfDirectory(atPath: store).contains { name in
            (try? Data(contentsOf: URL(fileURLWithPath: "\(store)/\(name)")))?.range(of: needle) != nil
        }
    }

    @Test func encryptThenDecryptKeepsEveryRow() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keys = try Self.writeKeys(in: directory)
        let store = try Self.plainStore(in: directory)
        let before = try Inspector.run(["export", store, "Person"]).stdout
        #expect(try Self.holds(store, "Lovelace"))

        let encrypted = try Inspector.run(["encrypt", store, "--key-file", keys.hex])
        #expect(encrypted.status == 0, "\(encrypted.stderr)")
        #expect(encrypted.stdout.hasPrefix("Encrypted \(store)"))
        #expect(try !Self.holds(store, "Lovelace"), "a file still holds a name in plain text")
        #expect(try Inspector.run(["export", store, "Person", "--key-file", keys.hex]).stdout == before)
        #expect(try Inspector.run(["count", store, "Person", "--key-file", keys.hex, "--where", "age == 99"]).stdout == "1\n")

        // A new key, then a save under it, then back to plain.
        let rotated = try Inspector.run(["rotate-key", store, "--key-file", keys.hex, "--new-key-file", keys.raw])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(try Inspector.run(["count", store, "Person", "--key-file", keys.hex]).status == 2)
        #expect(try Inspector.run(["delete", store, "Person", "--key-file", keys.raw, "--where", "age == 99"]).status == 0)
        let decrypted = try Inspector.run(["decrypt", store, "--key-file", keys.raw])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(try Inspector.run(["count", store, "Person"]).stdout == "4\n")
        #expect(try Inspector.run(["verify", store]).status == 0)
        #expect(try Self.holds(store, "Lovelace"))
    }

    @Test func commandsOpenAnEncryptedStoreWithTheRightKeyOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keys = try Self.writeKeys(in: directory)
        let store = directory.appending("people.strata")
        #expect(try Inspector.run(["create", store, "--schema", "\(Inspector.fixtures)/schema.json", "--key-file", keys.raw]).status == 0)
        #expect(try Inspector.run(["import", store, "Person", "\(Inspector.fixtures)/people.jsonl", "--key-file", keys.raw]).status == 0)
        #expect(try Inspector.run(["checkpoint", store, "--key-file", keys.raw]).status == 0)
        #expect(try !Self.holds(store, "Lovelace"))

        // The right key.
        #expect(try Inspector.run(["count", store, "Person", "--key-file", keys.raw]).stdout == "5\n")
        let info = try Inspector.run(["info", store, "--key-file", keys.raw])
        #expect(info.status == 0 && info.stdout.contains("Person"), "\(info.stderr)")
        let verify = try Inspector.run(["verify", store, "--deep", "--key-file", keys.raw])
        #expect(verify.status == 0 && verify.stdout.contains("The store is sound."), "\(verify.stdout)\(verify.stderr)")
        for command in [["schema", store], ["stats", store], ["log", store], ["query", store, "Person"]] {
            let run = try Inspector.run(command + ["--key-file", keys.raw])
            #expect(run.status == 0, "\(command[0]): \(run.stderr)")
        }

        // No key: a usage error that says what to pass, for every command.
        for command in [["info", store], ["count", store, "Person"], ["verify", store], ["export", store, "Person"],
                        ["update", store, "Person", "--set", "age=1"]] {
            let run = try Inspector.run(command)
            #expect(run.status == 2, "\(command[0]): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("this store is encrypted: pass --key-file"), "\(command[0]): \(run.stderr)")
        }

        // The wrong key: wrongKey's message, the same exit code, nothing changed.
        let files = try FileManager.default.contentsOfDirectory(atPath: store).sorted()
        for command in [["info", store], ["count", store, "Person"], ["verify", store], ["checkpoint", store]] {
            let run = try Inspector.run(command + ["--key-file", keys.hex])
            #expect(run.status == 2, "\(command[0]): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("does not open this store") && run.stderr.contains("another key"), "\(command[0]): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).sorted() == files)

        // A key on a plain store.
        let other = try TemporaryDirectory()
        defer { other.remove() }
        let plain = try Self.plainStore(in: other)
        let keyed = try Inspector.run(["count", plain, "Person", "--key-file", keys.raw])
        #expect(keyed.status == 2 && keyed.stderr.contains("not encrypted"), "\(keyed.stderr)")
    }

    @Test func aKeyFileOfAnotherSizeOrNotHexIsAUsageErrorNamingTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Self.plainStore(in: directory)
        let cases: [(String, Data)] = [
            ("short.key", Data(repeating: 1, count: 31)),
            ("long.key", Data(repeating: 1, count: 48)),
            ("nothex.key", Data(String(repeating: "zz", count: 32).utf8)),
            ("empty.key", Data()),
        ]
        for (name, bytes) in cases {
            let path = directory.appending(name)
            try bytes.write(to: URL(fileURLWithPath: path))
            let run = try Inspector.run(["encrypt", store, "--key-file", path])
            #expect(run.status == 2, "\(name): \(run.status)")
            #expect(run.stderr.contains(path) && run.stderr.contains("32 raw bytes") && run.stderr.contains("64 hexadecimal"), "\(name): \(run.stderr)")
        }
        let missing = try Inspector.run(["count", store, "Person", "--key-file", directory.appending("missing.key")])
        #expect(missing.status == 2 && missing.stderr.contains("missing.key"), "\(missing.stderr)")
        // Nothing was encrypted.
        #expect(try Inspector.run(["count", store, "Person"]).stdout == "5\n")
    }
}
