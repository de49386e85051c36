// Shared by every fuzz target (compiled into each by scripts/fuzz).
import Foundation
@testable import Strata
@testable import StrataStorage
import StrataTestSupport

enum FuzzSupport {
    /// The schema of the sample stores: a to-many / to-one pair (cascade / nullify).
    static let schema = try! Schema {
        Entity("Parent") {
            Attribute("name", .string, default: "")
            Attribute("count", .int64, default: 0)
            Attribute("flag", .bool, default: false)
            Attribute("when", .date, optional: true)
            Attribute("id", .uuid, optional: true)
            Attribute("blob", .binary, optional: true)
            Attribute("ratio", .double, optional: true)
            Relationship("children", to: "Child", inverse: "parent", toMany: true, deleteRule: .cascade)
        }
        Entity("Child") {
            Attribute("value", .int64, default: 0)
            Attribute("small", .int16, optional: true)
            Attribute("note", .string, optional: true)
            Relationship("parent", to: "Parent", inverse: "children", deleteRule: .nullify)
        }
    }

    static let directory = "/fuzz-store"

    static func options(_ fs: SimulatedFileSystem, readOnly: Bool = false,
                        recovery: RecoveryMode = .strict) -> PersistentStore.Options {
        var options = PersistentStore.Options()
        options.storage.fileSystem = fs
        options.storage.readOnly = readOnly
        options.storage.recoveryMode = recovery
        options.storage.segmentSize = 2048
        options.automaticCheckpointBytes = nil
        return options
    }

    /// A store with a varied history: saves, relationship edits, deletes, every batch
    /// request, and a checkpoint in the middle (so there is a snapshot and a log).
    static func sampleStore(checkpoint: Bool = true) throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let store = try PersistentStore.open(at: directory, schema: schema, options: options(fs))
        let context = ObjectContext(store: store)
        var parents: [ObjectID] = []
        try context.performAndWait {
            for i in 0..<6 {
                let parent = try context.insert("Parent")
                try parent.setValues(["name": .string("parent \(i)"), "count": .int(Int64(i * 7 - 10)), "flag": .bool(i % 2 == 0),
                                      "when": .date(Date(timeIntervalSinceReferenceDate: Double(i) * 1000)),
                                      "id": i % 3 == 0 ? .uuid(UUID()) : .null, "blob": .binary(Data(repeating: UInt8(i), count: i * 30)),
                                      "ratio": .double(Double(i) / 3)])
                parents.append(parent.objectID)
                for j in 0..<(i % 4) {
                    let child = try context.insert("Child")
                    try child.setValues(["value": .int(Int64(j)), "small": .int(Int64(j * 3)), "note": j % 2 == 0 ? .string("n\(j)") : .null])
                    try child.setObject(parent, forKey: "parent")
                }
            }
            try context.save()
        }
        if checkpoint { try store.checkpoint() }
        try context.performAndWait {
            let first = try context.existingObject(with: parents[0])
            try first.setValue("renamed", forKey: "name")
            context.delete(try context.existingObject(with: parents[2]))
            try context.save()
        }
        var update = BatchUpdateRequest(entityName: "Parent", predicate: try ObjectPredicate(format: "count >= 0"))
        update.propertiesToUpdate = ["count": .add("count", .int(1)), "flag": .not("flag")]
        _ = try store.execute(update)
        _ = try store.execute(BatchInsertRequest(entityName: "Child", objects: [["value": 5, "parent": .int(parents[1].primaryKey)], ["value": 6]]))
        _ = try store.execute(BatchDeleteRequest(entityName: "Parent", predicate: try ObjectPredicate(format: "name == 'parent 3'")))
        try store.close()
        return fs
    }

    /// The files of the sample store, by name.
    static func sampleFiles(checkpoint: Bool = true) -> [(String, [UInt8])] {
        guard let fs = try? sampleStore(checkpoint: checkpoint),
              let names = try? fs.contentsOfDirectory(directory) else { return [] }
        return names.compactMap { name in fs.contents(of: "\(directory)/\(name)").map { (name, $0) } }
    }

    /// The log records of the sample store (kind and payload), in order.
    static func sampleRecords() -> [(kind: UInt8, payload: [UInt8])] {
        guard let fs = try? sampleStore(checkpoint: false),
              let (_, recovered) = try? StorageEngine.open(at: directory, options: options(fs, readOnly: true).storage)
        else { return [] }
        return recovered.records.map { ($0.kind, $0.payload) }
    }

    /// When `STRATA_FUZZ_SEEDS` names a directory, writes `seeds` there (one file each) and
    /// exits: scripts/fuzz builds the seed corpus this way.
    static func writeSeedsIfAsked(_ seeds: () -> [[UInt8]]) {
        guard let directory = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEEDS"] else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let all = seeds()
        for (index, seed) in all.enumerated() {
            FileManager.default.createFile(atPath: "\(directory)/generated-\(index)", contents: Data(seed))
        }
        print("wrote \(all.count) seeds to \(directory)")
        exit(0)
    }
}

/// Reads little-endian fields from fuzz input without ever trapping.
struct FuzzInput {
    var bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var isAtEnd: Bool { position >= bytes.count }
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }
    mutating func uint16() -> Int { Int(byte()) | Int(byte()) << 8 }
    mutating func take(_ n: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(0, n))
        defer { position = end }
        return Array(bytes[min(position, end)..<end])
    }
    mutating func rest() -> [UInt8] { take(bytes.count - position) }
}
