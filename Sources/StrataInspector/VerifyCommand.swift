import ArgumentParser
import Foundation
import Strata
import StrataStorage

/// `strata verify STORE [--deep]`.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every checksum and the log's replay; with --deep, decode every chunk and check the graph's invariants.",
        discussion: """
            Deep invariants: primary keys ascending and unique, row versions within the store's \
            LSN, required attributes set, every to-one reference pointing at an existing row, \
            one-to-one pairs agreeing. Exit code 0 when the store is sound, 4 when a problem \
            was found (warnings, such as a torn final write, do not count).

            Example:
              strata verify todo.strata --deep && echo sound
            """)

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    @Flag(help: "Also decode every snapshot chunk and check the object graph's invariants.")
    var deep = false

    /// About how many bytes verification reads, for the progress bar: the log once, each
    /// snapshot twice (opening, then its checksums), three times with `--deep` (decoding).
    private func expectedReading() -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: target.store)) ?? []
        return names.reduce(0) { total, name in
            let size = ((try? FileManager.default.attributesOfItem(atPath: "\(target.store)/\(name)"))?[.size] as? Int64) ?? 0
            if StoreFileNames.snapshotLSN(name) != nil { return total + size * (deep ? 3 : 2) }
            return total + (StoreFileNames.segmentLSN(name) != nil ? size : 0)
        }
    }

    func run() throws {
        try reportingFailures {
            let cipher = try key.cipher()
            let report = try ReadProgress.run("Verifying \(target.store)", expectedBytes: expectedReading()) {
                try StoreInspector.verify(at: target.store, deep: deep, cipher: cipher)
            }
            let out = OutputBuffer()
            out.line("Checked:")
            for check in report.checks { out.line("  ok  \(check)") }
            // The same damage can be found twice (opening the store, then checking each
            // snapshot file): report it once.
            var seen = Set<String>()
            let findings = report.findings.filter { seen.insert("\($0.severity.rawValue) \($0.message)").inserted }
            for finding in findings {
                var line = "  \(finding.severity.rawValue)  \(finding.message)"
                if let file = finding.file, !finding.message.contains(file) {
                    line += " [\(file)" + (finding.offset.map { ", offset \($0)" } ?? "") + "]"
                }
                out.line(line)
            }
            let errors = findings.filter { $0.severity == .error }.count
            out.line(report.isSound ? "The store is sound." : "\(errors) \(errors == 1 ? "problem" : "problems") found.")
            try out.flush()
            if !report.isSound {
                var summary = "verification failed: \(errors) \(errors == 1 ? "problem" : "problems")"
                if let corruption = report.firstCorruption, let file = corruption.file {
                    summary += ", first in \(file)" + (corruption.offset.map { " at byte \($0)" } ?? "")
                }
                throw InspectorFailure(.corrupted, summary + ".")
            }
        }
    }
}
