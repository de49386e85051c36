import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A read-only store in this process follows a writer in another process
/// (`Tests/StrataFollowWriter`) that saves, runs batch updates and checkpoints (deleting the
/// segments the reader may be reading): after every refresh the reader's state must be
/// exactly the writer's state after some prefix of its transactions, and that prefix only
/// grows.
///
/// `STRATA_FOLLOW_STEPS` (default 300) sets the writer's transactions; `STRATA_SEED` the
/// poll intervals' seed.
@Suite struct FollowerProcessTests {
    /// The writer's schema (the same as in `Tests/StrataFollowWriter/main.swift`).
    static let schema = try! Schema {
        Entity("Item") {
            Attribute("seq", .int64)
            Attribute("tag", .int64, default: 0)
        }
        Entity("Counter") {
            Attribute("value", .int64, default: 0)
        }
    }

    /// What the store holds after the writer's first `step` transactions (its rules, replayed).
    struct Model: Equatable {
        /// Item tag by seq.
        var items: [Int64: Int64] = [:]
        var counter: Int64 = 0

        mutating func apply(step j: Int64) {
            if j % 10 == 0 {
                for seq in items.keys { items[seq] = j }
            } else {
                items[j] = 0
                counter = j
                if j % 7 == 0 { items[j - 3] = nil }
            }
        }

        /// The model of what `store`'s newest version holds.
        init(_ store: PersistentStore) {
            let dump = GraphDump(store)
            for row in (dump.entities["Item"] ?? [:]).values {
                if case .int(let seq)? = row["seq"], case .int(let tag)? = row["tag"] { items[seq] = tag }
            }
            if case .int(let value)? = dump.entities["Counter"]?.values.first?["value"] { counter = value }
        }

        init() {}
    }

    /// The helper binary, built next to the test bundle, or `nil`.
    static func writerExecutable() -> URL? {
        var directories = [URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        directories.append(URL(fileURLWithPath: Bundle.main.bundlePath))
        var candidates: [URL] = []
        for directory in directories {
            var parent = directory
            for _ in 0..<5 {
                candidates.append(parent.appendingPathComponent("StrataFollowWriter"))
                parent = parent.deletingLastPathComponent()
            }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test func aReaderFollowsAWriterProcessThatCheckpoints() throws {
        guard let executable = Self.writerExecutable() else {
            Issue.record("StrataFollowWriter was not found next to the test bundle (\(CommandLine.arguments[0])). Build it with `swift build --build-tests` before running the tests with --skip-build.")
            return
        }
        let steps = Int64(testKnob("STRATA_FOLLOW_STEPS", default: 300))
        var random = SplitMix64(seed: UInt64(testKnob("STRATA_SEED", default: 1)))
        let directory = try TemporaryDirectory(prefix: "strata-follow")
        defer { directory.remove() }
        var options = PersistentStore.Options()
        options.storage.durability = .never
        let setup = try PersistentStore.open(at: directory.path, schema: Self.schema, options: options)
        let setupContext = ObjectContext(store: setup)
        try setupContext.performAndWait {
            _ = try setupContext.insert("Counter")
            try setupContext.save()
        }
        let base = setup.lastLSN
        try setup.close()

        let reader = try PersistentStore.open(at: directory.path, options: .readOnly)
        defer { try? reader.close() }
        let view = ObjectContext(store: reader, name: "view")
        let request = FetchRequest(entityName: "Item", sortKeys: [SortKey("seq")])
        let controller = try FetchedResultsController(fetchRequest: request, context: view)
        try view.performAndWait {
            view.automaticallyMergesChangesFromStore = true
            try controller.performFetch()
        }

        let process = Process()
        let output = Pipe()
        process.executableURL = executable
        process.arguments = [directory.path, String(steps), "25"]
        process.standardOutput = output
        try process.run()

        var model = Model()
        var step: Int64 = 0
        var refreshes = 0, distinct = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(300)
        while true {
            // Read before the refresh: once the writer has exited, this refresh sees all of it.
            let exited = !process.isRunning
            try reader.refresh()
            refreshes += 1
            let reached = Int64(reader.lastLSN) - Int64(base)
            guard reached >= step else {
                Issue.record("the reader went back from step \(step) to \(reached)")
                break
            }
            if reached > step { distinct += 1 }
            while step < reached {
                step += 1
                model.apply(step: step)
            }
            let seen = Model(reader)
            if seen != model {
                Issue.record("after step \(step) (LSN \(reader.lastLSN)) the reader holds \(seen.items.count) items and counter \(seen.counter), the writer's prefix \(model.items.count) items and counter \(model.counter)")
                break
            }
            if exited { break }
            if clock.now >= deadline {
                Issue.record("the writer did not finish within the failsafe deadline")
                process.terminate()
                break
            }
            // The poll interval: mostly short, sometimes long enough for the writer to
            // checkpoint past the segment being read (the reader then starts over from the
            // snapshot). Nothing waits for a condition here: the loop polls until the writer
            // has exited and the last refresh after that has been checked.
            usleep(random.next() % 8 == 0 ? UInt32(random.next() % 30_000) : 300)
        }
        process.waitUntilExit()
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "the writer said: \(line)")
        #expect(line.hasPrefix("done \(reader.lastLSN)"), "the reader reached the writer's last transaction: \(line)")
        #expect(step == steps)
        let reopens = reader.following.reopens.withLock { $0 }
        print("follower: \(refreshes) refreshes, \(distinct) distinct prefixes seen, \(reopens) reopens from a snapshot, \(steps) writer transactions")
        let fresh = try view.performAndWait { try view.fetchObjectIDs(request) }
        #expect(waitUntil(view) { controller.fetchedObjectIDs == fresh }, "the controller on the reader followed")
    }
}
