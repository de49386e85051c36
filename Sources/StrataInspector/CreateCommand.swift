import ArgumentParser
import Foundation
import Strata
import StrataStorage

/// `strata create STORE --schema schema.json`.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an empty store with the schema in a JSON file.",
        discussion: """
            The schema file is the JSON form of the schema (what schema --json prints).
            The simplest:
              {"entities": [{"name": "Person",
                "attributes": [{"name": "age", "type": "int64"},
                  {"name": "nickname", "type": "string", "optional": true}],
                "relationships": []}]}
            Types: bool, int16, int32, int64, double, string, date, uuid, binary.

            Example:
              strata create people.strata --schema schema.json
            """)

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    @Option(help: ArgumentHelp("The schema's JSON file.", valueName: "file"))
    var schema: String

    func run() throws {
        try reportingFailures {
            guard let data = FileManager.default.contents(atPath: schema) else {
                throw InspectorFailure(.notAStore, "cannot read the schema file \(schema); check the path.")
            }
            let parsed = try Schema(jsonData: data)
            if Self.isStore(target.store) {
                throw InspectorFailure(.notAStore, "there is already a store at \(target.store); choose a new directory.")
            }
            var options = PersistentStore.Options()
            options.automaticCheckpointBytes = nil
            options.storage.cipher = try key.cipher()
            let store = try PersistentStore.open(at: target.store, schema: parsed, options: options)
            try store.close()
            print("Created \(target.store) with \(parsed.entities.count) \(parsed.entities.count == 1 ? "entity" : "entities"): \(parsed.entities.map(\.name).joined(separator: ", ")).")
        }
    }

    /// Whether `path` already holds store files.
    static func isStore(_ path: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { StoreFileNames.segmentLSN($0) != nil || StoreFileNames.snapshotLSN($0) != nil }
    }
}

/// Opening a store for writing: with the writer lock, never creating a missing one.
enum WritableStore {
    /// Opens `path` for writing with its stored schema, with the key of `key`.
    ///
    /// - Throws: `StorageError` `.locked`, `.notAStore`, `.corrupted`, `.wrongKey`…
    static func open(_ path: String, key: KeyFileOption) throws -> PersistentStore {
        try open(path, cipher: key.cipher())
    }

    /// Opens `path` for writing with its stored schema, under `cipher` (`nil`: plain).
    static func open(_ path: String, cipher: (any StoreCipher)?) throws -> PersistentStore {
        var options = PersistentStore.Options()
        options.storage.cipher = cipher
        options.storage.createIfMissing = false
        options.automaticCheckpointBytes = nil
        if !CreateCommand.isStore(path) && FileManager.default.fileExists(atPath: path) {
            throw StorageError(.notAStore, "\(path) is not a Strata store.", file: path)
        }
        return try PersistentStore.open(at: path, options: options)
    }
}
