import ArgumentParser
import Foundation
import Strata

/// `strata log STORE [--from LSN] [--limit N] [--json]`.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List the transactions in the log: LSN, time, kind, rows changed per entity, bytes on disk.",
        discussion: """
            Transactions that a checkpoint folded into the snapshot are no longer in the log; \
            when the store keeps persistent history, they are listed from it (their SEGMENT is \
            a history-….hist file), with each transaction's author. \
            With --json, one object per line: lsn, time (ISO 8601, UTC), kind, bytes, payloadBytes, \
            segment, offset, author (when known) and changes ({"entity", "inserted", "updated", "deleted"}).

            Example:
              strata log todo.strata --from 100 --limit 20 --json
            """)

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    @Option(help: ArgumentHelp("The first LSN to list.", valueName: "LSN"))
    var from: UInt64 = 0

    @Option(help: "At most this many transactions.")
    var limit: Int?

    @Flag(help: "One JSON object per line.")
    var json = false

    func run() throws {
        try reportingFailures {
            let entries = try StoreInspector.open(at: target.store, cipher: key.cipher()).log(from: from, limit: limit)
            let out = OutputBuffer()
            if json {
                for entry in entries { out.line(Self.json(entry)) }
            } else {
                if entries.contains(where: { $0.author != nil || $0.segment.hasSuffix(".hist") }) {
                    // A store with persistent history: who made each transaction, and where it
                    // is kept (the log, or history for those a checkpoint folded away).
                    TableWriter(header: ["LSN", "TIME", "KIND", "AUTHOR", "CHANGES", "BYTES", "SEGMENT"], rows: entries.map { entry in
                        [String(entry.lsn), Self.time(entry.time), entry.kind, entry.author ?? "-", Self.changes(entry),
                         String(entry.bytesOnDisk), entry.segment]
                    }).write(to: out)
                } else {
                    TableWriter(header: ["LSN", "TIME", "KIND", "CHANGES", "BYTES"], rows: entries.map { entry in
                        [String(entry.lsn), Self.time(entry.time), entry.kind, Self.changes(entry), String(entry.bytesOnDisk)]
                    }).write(to: out)
                }
            }
            try out.flush()
        }
    }

    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// `Person +3 ~1 -2, Pet +1`, or `-` when nothing changed.
    static func changes(_ entry: LogEntry) -> String {
        guard !entry.changes.isEmpty else { return "-" }
        return entry.changes.map { change in
            var parts = [change.entity]
            if change.inserted > 0 { parts.append("+\(change.inserted)") }
            if change.updated > 0 { parts.append("~\(change.updated)") }
            if change.deleted > 0 { parts.append("-\(change.deleted)") }
            return parts.joined(separator: " ")
        }.joined(separator: ", ")
    }

    static func json(_ entry: LogEntry) -> String {
        let changes = entry.changes.map { change in
            RowText.jsonObject([("entity", .string(change.entity)), ("inserted", .int(Int64(change.inserted))),
                                ("updated", .int(Int64(change.updated))), ("deleted", .int(Int64(change.deleted)))])
        }
        var fields: [(String, AttributeValue)] = [("lsn", .int(Int64(entry.lsn))), ("time", .string(time(entry.time))),
                                                  ("kind", .string(entry.kind)), ("bytes", .int(Int64(entry.bytesOnDisk))),
                                                  ("payloadBytes", .int(Int64(entry.payloadBytes))),
                                                  ("segment", .string(entry.segment)), ("offset", .int(entry.offset))]
        if let author = entry.author { fields.append(("author", .string(author))) }
        let head = RowText.jsonObject(fields)
        return head.dropLast() + ",\"changes\":[" + changes.joined(separator: ",") + "]}"
    }
}
