import Foundation
import Testing
import StrataTestSupport
import StrataStorage

/// Two writer processes racing to open the same store: exactly one wins the writer lock and
/// the other gets a `locked` error, round after round. Readers need no lock.
///
/// Rounds: `STRATA_LOCK_ROUNDS` (default 20).
@Suite struct LockRaceTests {
    @Test func exactlyOneOfTwoRacingWritersWins() throws {
        let probe = try LockProbe.requireExecutable()
        let rounds = testKnob("STRATA_LOCK_ROUNDS", default: 20)
        let temporary = try TemporaryDirectory(prefix: "strata-lock-race")
        defer { temporary.remove() }
        for round in 0..<rounds {
            // A fresh, not yet existing store directory: the probes also race to create it.
            let store = temporary.appending("store-\(round)")
            let first = try LockProbe(executable: probe, directory: store)
            let second: LockProbe
            do {
                second = try LockProbe(executable: probe, directory: store)
            } catch {
                first.finish()
                throw error
            }
            let lines = [first.firstLine(), second.firstLine()]
            let statuses = [first.finish(), second.finish()]
            #expect(lines.sorted() == ["locked", "won"], "round \(round): \(lines)")
            #expect(statuses == [0, 0], "round \(round): exit statuses \(statuses), output \(lines)")
        }
    }

    @Test func readOnlyOpenSucceedsWhileAnotherProcessWrites() throws {
        let probe = try LockProbe.requireExecutable()
        let temporary = try TemporaryDirectory(prefix: "strata-lock-reader")
        defer { temporary.remove() }
        let store = temporary.appending("store")
        let writer = try LockProbe(executable: probe, directory: store)
        defer { writer.finish() }
        try #require(writer.firstLine() == "won")

        var options = StorageOptions()
        options.readOnly = true
        let (reader, state) = try StorageEngine.open(at: store, options: options)
        #expect(reader.isReadOnly && state.records.isEmpty && state.report.readOnly)
        try reader.close()

        // A writable open in this process is refused while the probe holds the lock.
        let refused = #expect(throws: StorageError.self) { _ = try StorageEngine.open(at: store) }
        #expect(refused?.code == .locked)
    }
}
