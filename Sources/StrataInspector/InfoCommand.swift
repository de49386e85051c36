import ArgumentParser
import Foundation
import Strata
import StrataStorage

/// `strata info STORE [--at LSN]`.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the format version, LSN range, files, row counts, schema summary and last recovery.",
        discussion: "Example:\n  strata info todo.strata\n  strata info todo.strata --at 42")

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption
    @OptionGroup var at: AtOption

    func run() throws {
        try reportingFailures {
            let inspector = try at.open(target.store, key: key)
            let out = OutputBuffer()
            let format = inspector.snapshot.map { "\($0.formatVersion.major).\($0.formatVersion.minor)" } ?? StrataFormat.description
            out.line("Store:        \(inspector.directory)")
            out.line("Format:       \(format)")
            out.line("Store ID:     \(inspector.store.storeID.uuidString)")
            var range = "\(inspector.oldestReachableLSN)…\(inspector.newestLSN)"
            if let snapshot = inspector.snapshot { range += " (snapshot at \(snapshot.lsn), log after it: \(Self.plural(inspector.log().count, "transaction")))" }
            out.line("LSN range:    \(range)")
            if at.lsn != nil { out.line("Showing:      the store as of LSN \(inspector.lsn)") }
            if let hold = inspector.logHold {
                out.line("Repl. hold:   from LSN \(hold.heldFromLSN), \(Self.plural(Int(hold.framesHeld), "frame")) not shipped by the sidecar")
                if hold.heldFromLSN == 0 || hold.isLagging() { out.line("Warning:      \(hold.explanation)") }
            }
            out.line("")
            out.line("Files:")
            let files = try inspector.files().filter { $0.kind != .other }
            TableWriter(header: ["NAME", "KIND", "BYTES", "LSNS", "RATIO"], rows: files.map { file in
                [file.name, file.kind.rawValue, String(file.size), Self.lsns(file),
                 file.compressionRatio.map { String(format: "%.2f", $0) } ?? "-"]
            }).write(to: out)
            out.line("")
            out.line("Entities:")
            let counts = inspector.store.rowCounts
            TableWriter(header: ["ENTITY", "ROWS", "ATTRIBUTES", "RELATIONSHIPS"], rows: inspector.store.schema.entities.map {
                [$0.name, String(counts[$0.name] ?? 0), String($0.attributes.count), String($0.relationships.count)]
            }).write(to: out)
            let indexed = inspector.store.schema.entities.filter { !$0.indexes.isEmpty || !$0.uniquenessConstraints.isEmpty }
            if !indexed.isEmpty {
                out.line("")
                out.line("Indexes:")
                TableWriter(header: ["ENTITY", "INDEX", "UNIQUE"], rows: indexed.flatMap { entity in
                    entity.indexes.map { [entity.name, "(" + $0.joined(separator: ", ") + ")", "no"] }
                        + entity.uniquenessConstraints.map { [entity.name, "(" + $0.joined(separator: ", ") + ")", "yes"] }
                }).write(to: out)
            }
            out.line("")
            out.line("Last recovery (\(inspector.lastWritableRecoveryReport() == nil ? "this read-only open" : "last writable open")):")
            for line in Self.describe(inspector.lastWritableRecoveryReport() ?? inspector.recoveryReport) { out.line("  " + line) }
            try out.flush()
        }
    }

    /// `1 transaction`, `2 transactions`.
    static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    private static func lsns(_ file: StoreFile) -> String {
        switch (file.firstLSN, file.lastLSN) {
        case let (first?, last?) where first == last: return String(first)
        case let (first?, last?): return "\(first)…\(last)"
        case let (first?, nil): return "\(first)…"
        default: return "-"
        }
    }

    /// The report without its time, one fact per line.
    static func describe(_ report: RecoveryReport) -> [String] {
        var lines = ["snapshot: \(report.snapshotFile ?? "none")",
                     "replayed: \(plural(report.replayedTransactions, "transaction")), up to LSN \(report.lastLSN)"]
        if let torn = report.tornTail {
            lines.append("torn tail: \(torn.file) cut at byte \(torn.offset) (\(torn.bytesDiscarded) bytes)")
        }
        if let corruption = report.corruption { lines.append("corruption: \(corruption)") }
        for (name, reason) in report.unusableSnapshots.sorted(by: { $0.key < $1.key }) {
            lines.append("unusable snapshot: \(name): \(reason)")
        }
        if !report.quarantinedFiles.isEmpty { lines.append("quarantined: \(report.quarantinedFiles.joined(separator: ", "))") }
        if !report.removedFiles.isEmpty { lines.append("removed: \(report.removedFiles.joined(separator: ", "))") }
        if !report.hadDamage { lines.append("no damage found") }
        return lines
    }
}
