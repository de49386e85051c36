import Foundation
import Testing
import StrataTestSupport
@testable import Strata
@testable import StrataReplication

/// `strata follow` and `strata promote`: the operator's way to run a read replica in its own
/// process and to make it the primary when the primary's host is lost.
@Suite(.enabled(if: TestServer.available, TestServer.skipReason), .serialized)
struct FollowPromoteCommandTests {
    /// A running `strata` process whose output lines are collected as they come.
    final class RunningTool: @unchecked Sendable {
        // `@unchecked Sendable`: `output` is read and written only while `lock` is held (the
        // pipe's handler runs on a FileHandle queue, the test reads on its own thread).
        let process = Process()
        private let lock = NSLock()
        private var output = ""
        private let errors = Pipe()

        init(_ arguments: [String], executable: String = RestoreCommandTests.binary) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            out.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.withLock { self.output += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
        }

        var stdout: String { lock.withLock { output } }

        /// Sends SIGKILL and waits for the process to go.
        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Waits (bounded) until the output holds `text`.
        func waitFor(_ text: String, seconds: TimeInterval = 20) -> Bool {
            ReplicaTests.eventually(seconds) { stdout.contains(text) }
        }

        /// Sends SIGTERM and waits for the exit; returns the exit status and standard error.
        func stop() -> (Int32, String) {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            // Let the handler take the last bytes.
            Thread.sleep(forTimeInterval: 0.05)
            return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    @Test func followKeepsAReplicaCurrentAndPromoteFencesTheOldPrimary() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let url = try TestServer.requireURL()
        let (primary, replicator) = try ReplicaTests.shippedPrimary(dir)
        defer { replicator.stop() }
        let replicaDir = dir.appending("replica.strata")

        let follow = try RunningTool(["follow", replicaDir, "--from", url, "--store", replicator.storeID,
                                      "--poll-ms", "50", "--report-ms", "20"])
        #expect(follow.waitFor("Following store \(replicator.storeID) from "), "\(follow.stdout)")
        for round in 3..<6 { try PeopleStore.save(primary, round: round) }
        #expect(replicator.waitUntilShipped(primary.lastLSN))
        #expect(follow.waitFor("Applied LSN \(primary.lastLSN) "), "\(follow.stdout)")
        // Another process reads the replica's directory as a read-only store meanwhile.
        let reader = try PersistentStore.open(at: replicaDir, options: .readOnly)
        #expect(try PeopleStore.contents(reader) == PeopleStore.contents(primary))
        try reader.close()
        let (status, stderr) = follow.stop()
        #expect(status == 0, "\(stderr)")
        #expect(follow.stdout.hasSuffix("Stopped at LSN \(primary.lastLSN) (primary at \(primary.lastLSN)); \(replicaDir) stays a replica of store \(replicator.storeID).\n"), "\(follow.stdout)")

        // The primary's host is "lost" after one more shipped save; promote the replica.
        try PeopleStore.save(primary, round: 6)
        #expect(replicator.waitUntilShipped(primary.lastLSN))
        let lastShipped = primary.lastLSN
        let promote = try RunningTool(["promote", replicaDir, "--from", url, "--store", replicator.storeID])
        let (promoteStatus, promoteErrors) = promote.stop()
        #expect(promoteStatus == 0, "\(promoteErrors)")
        #expect(promote.stdout.hasPrefix("Promoted store \(replicator.storeID) in \(replicaDir) at LSN \(lastShipped) under epoch 1:"), "\(promote.stdout)")

        // The old primary's next frame is refused, and its replicator stops with `fenced`.
        try PeopleStore.save(primary, round: 7)
        #expect(ReplicaTests.eventually { !replicator.status.isRunning }, "the fenced replicator kept running")
        #expect(replicator.status.lastError?.code == .fenced)

        // The directory is now a writable store with everything shipped before the fence.
        let promoted = try PeopleStore.open(replicaDir)
        defer { try? promoted.close() }
        #expect(promoted.lastLSN == lastShipped)
        try PeopleStore.save(promoted, round: 8)
        #expect(try EpochFile.read(replicaDir) == 1)

        // Promoting a directory that is a store but not a replica is refused and changes nothing.
        let refused = try RunningTool(["promote", primary.directory, "--from", url, "--store", replicator.storeID])
        let (refusedStatus, refusedErrors) = refused.stop()
        #expect(refusedStatus == 2, "\(refusedErrors)")
        #expect(refusedErrors.contains("not a replica"), "\(refusedErrors)")
    }
}
