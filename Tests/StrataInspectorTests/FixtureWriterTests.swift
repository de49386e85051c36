import Foundation
import Testing

/// Regenerates `Fixtures/inspector` (stores and expected outputs) with the built binary
/// when `STRATA_WRITE_FIXTURES=1`; review the diff before committing it.
@Suite struct FixtureWriterTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_WRITE_FIXTURES"] == "1"))
    func writeFixtures() throws {
        let fixtures = Inspector.fixtures
        let manager = FileManager.default
        for store in [Inspector.logStore, Inspector.checkpointedStore] where manager.fileExists(atPath: store) {
            try manager.removeItem(atPath: store)
        }
        let steps: [[String]] = [
            ["create", Inspector.logStore, "--schema", "\(fixtures)/schema.json"],
            ["import", Inspector.logStore, "Person", "\(fixtures)/people.jsonl"],
            ["import", Inspector.logStore, "Pet", "\(fixtures)/pets.csv"],
            ["update", Inspector.logStore, "Person", "--set", "active=false", "--where", "age > 80"],
            ["delete", Inspector.logStore, "Pet", "--where", "name == 'Stray'"],
        ]
        for step in steps { try #require(try Inspector.run(step).status == 0, "\(step)") }
        try manager.copyItem(atPath: Inspector.logStore, toPath: Inspector.checkpointedStore)
        for step in [["checkpoint", Inspector.checkpointedStore],
                     ["update", Inspector.checkpointedStore, "Person", "--set", "score=10", "--where", "name BEGINSWITH 'A'"]] {
            try #require(try Inspector.run(step).status == 0, "\(step)")
        }
        try? manager.createDirectory(atPath: "\(fixtures)/expected", withIntermediateDirectories: true)
        for golden in GoldenCase.all {
            let run = try Inspector.run(golden.arguments)
            try #require(run.status == 0, "\(golden.name): \(run.stderr)")
            try Inspector.normalized(run.stdout).write(toFile: "\(fixtures)/expected/\(golden.name).txt", atomically: true, encoding: .utf8)
        }
    }
}
