import Foundation
import Testing

/// The binary's output on the fixture stores, compared with the expected files.
@Suite struct GoldenOutputTests {
    @Test(arguments: GoldenCase.all)
    func outputMatchesExpectedFile(_ golden: GoldenCase) throws {
        let run = try Inspector.run(golden.arguments)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.isEmpty)
        let path = "\(Inspector.fixtures)/expected/\(golden.name).txt"
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(Inspector.normalized(run.stdout) == expected, "strata \(golden.arguments.dropFirst(2).joined(separator: " ")) differs from \(path)")
    }
}
