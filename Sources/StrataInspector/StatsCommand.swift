import ArgumentParser
import Strata

/// `strata stats STORE`.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Per entity and column: rows, nil values, bytes in memory, bytes on disk.",
        discussion: """
            An entity's DISK bytes are exact (its chunks in the snapshot); a column's are its \
            share of them in proportion to its memory bytes (marked ~), since a snapshot \
            compresses a chunk's columns together. Rows replayed from the log after the \
            snapshot take memory but no snapshot bytes yet.

            Example:
              strata stats todo.strata
            """)

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    func run() throws {
        try reportingFailures {
            let statistics = try StoreInspector.open(at: target.store, cipher: key.cipher()).statistics()
            var rows: [[String]] = []
            for entity in statistics {
                rows.append([entity.entity, "", "", String(entity.rows), "", String(entity.bytesInMemory), String(entity.bytesOnDisk)])
                for column in entity.columns {
                    rows.append(["", column.name, column.type, String(entity.rows), String(column.nulls),
                                 String(column.bytesInMemory), "~\(column.estimatedBytesOnDisk)"])
                }
            }
            let out = OutputBuffer()
            TableWriter(header: ["ENTITY", "COLUMN", "TYPE", "ROWS", "NILS", "MEMORY", "DISK"], rows: rows).write(to: out)
            try out.flush()
        }
    }
}
