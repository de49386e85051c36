import Foundation
import StrataTestSupport
import Testing

/// Issue 22: an operator sees a sidecar replicator's hold on the log in `strata info`, and a
/// warning from `strata info` and `strata verify` when the hold keeps the whole log.
@Suite struct LogHoldCommandTests {
    @Test func infoShowsTheHoldAndVerifyWarnsWhenItKeepsEverything() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try Inspector.copy(Inspector.logStore, into: directory.path)
        let plain = try Inspector.run(["info", store])
        #expect(!plain.stdout.contains("Repl. hold"))

        try Data("4\n".utf8).write(to: URL(fileURLWithPath: "\(store)/replication-hold"))
        let held = try Inspector.run(["info", store])
        #expect(held.stdout.contains("Repl. hold:   from LSN 4, 2 frames not shipped by the sidecar"), "\(held.stdout)")
        #expect(!held.stdout.contains("Warning:"))

        try Data("garbage".utf8).write(to: URL(fileURLWithPath: "\(store)/replication-hold"))
        let everything = try Inspector.run(["info", store])
        #expect(everything.stdout.contains("Warning:      A sidecar replicator's hold (replication-hold) keeps the whole log"), "\(everything.stdout)")
        let verify = try Inspector.run(["verify", store])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect((verify.stdout + verify.stderr).contains("replication-hold"), "\(verify.stdout)")
    }
}
