import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// `strata restore --from URL --store ID [--at LSN] DIR`, run as a person would: the built binary.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct RestoreCommandTests {
    /// `strata`, next to the test runner in the build folder (or `$STRATA_BINARY`).
    static let binary: String = {
        if let explicit = ProcessInfo.processInfo.environment["STRATA_BINARY"] { return explicit }
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
        while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("strata").path
    }()

    static func strata(_ arguments: [String]) throws -> ChildProcessRun {
        try runChildProcess(binary, arguments)
    }

    @Test func restoreBuildsAStoreThatVerifyAccepts() throws {
        let url = try TestServer.requireURL()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try PeopleStore.open(dir.appending("primary.strata"))
        let replicator = try Replicator(store: store, url: url)
        try replicator.start()
        for round in 0..<5 { try PeopleStore.save(store, round: round) }
        let middle = store.lastLSN - 2
        #expect(replicator.waitUntilShipped(store.lastLSN))
        replicator.stop()

        let target = dir.appending("restored.strata")
        let run = try Self.strata(["restore", "--from", url, "--store", replicator.storeID, "--at", String(middle), target])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Restored store \(replicator.storeID) to LSN \(middle) in \(target): the first frame, then \(middle) frame(s) in 1 segment(s).\n")
        let verify = try Self.strata(["verify", target, "--deep"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(try PersistentStore.open(at: target).lastLSN == middle)

        let missing = try Self.strata(["restore", "--from", url, "--store", "no-such-store", dir.appending("other")])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("holds no store no-such-store"))
        let badURL = try Self.strata(["restore", "--from", "http://x/y", "--store", "s", dir.appending("other")])
        #expect(badURL.status == 2)
    }

    /// `--at TIME`: the state after the last transaction committed at or before the time, by
    /// the frames' own timestamps; a time before the first frame is `notFound` (exit 3).
    @Test func restoreByTimeStopsAtTheLastTransactionCommittedBeforeIt() throws {
        let url = try TestServer.requireURL()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let before = Date()
        Thread.sleep(forTimeInterval: 0.01)
        let store = try PeopleStore.open(dir.appending("primary.strata"))   // its first frame
        let replicator = try Replicator(store: store, url: url)
        try replicator.start()
        defer { replicator.stop() }
        for round in 0..<3 { try PeopleStore.save(store, round: round) }
        let middle = store.lastLSN
        let contentsThen = try PeopleStore.contents(store)
        Thread.sleep(forTimeInterval: 0.05)
        let between = Date()
        Thread.sleep(forTimeInterval: 0.05)
        for round in 3..<5 { try PeopleStore.save(store, round: round) }
        #expect(replicator.waitUntilShipped(store.lastLSN))

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let target = dir.appending("restored.strata")
        let run = try Self.strata(["restore", "--from", url, "--store", replicator.storeID, "--at", formatter.string(from: between), target])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("Restored store \(replicator.storeID) to LSN \(middle) in \(target):"), "\(run.stdout)")
        let restored = try PeopleStore.open(target)
        #expect(try PeopleStore.contents(restored) == contentsThen)
        try restored.close()

        // Through the library: a time after the last frame gives everything shipped.
        let latest = try StoreRestore.restore(from: url, storeID: replicator.storeID, asOf: Date().addingTimeInterval(60),
                                              into: dir.appending("latest.strata"))
        #expect(latest.lsn == store.lastLSN)

        let early = try Self.strata(["restore", "--from", url, "--store", replicator.storeID, "--at", formatter.string(from: before), dir.appending("early")])
        #expect(early.status == 3, "\(early.stderr)")
        #expect(early.stderr.contains("nothing committed at or before"), "\(early.stderr)")
        let malformed = try Self.strata(["restore", "--from", url, "--store", replicator.storeID, "--at", "yesterday", dir.appending("bad")])
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("neither an LSN"), "\(malformed.stderr)")
    }
}
