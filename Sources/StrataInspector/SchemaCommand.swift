import ArgumentParser
import Foundation
import Strata

/// `strata schema STORE [--json]`.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the stored schema, readable or as JSON (the form `create --schema` reads), or its versions.",
        discussion: "Examples:\n  strata schema todo.strata --json > schema.json\n  strata schema todo.strata --history")

    @OptionGroup var target: StoreArgument
    @OptionGroup var key: KeyFileOption

    @Flag(help: "Print the schema's JSON form.")
    var json = false

    @Flag(help: "List the schema versions the store has been through: the LSN that recorded each, its label and what changed.")
    var history = false

    func run() throws {
        try reportingFailures {
            let store = try StoreInspector.open(at: target.store, cipher: key.cipher()).store
            let schema = store.schema
            let out = OutputBuffer()
            if history {
                Self.printHistory(store.schemaHistory, to: out)
            } else if json {
                out.line(schema.jsonString(prettyPrinted: true).trimmingCharacters(in: .newlines))
            } else {
                for (index, entity) in schema.entities.enumerated() {
                    if index > 0 { out.line("") }
                    out.line(entity.name)
                    var rows = entity.attributes.map { attribute in
                        ["  " + attribute.name, attribute.type.rawValue + (attribute.isOptional ? "?" : ""),
                         attribute.defaultValue.isNull ? "" : "default \(RowText.text(of: attribute.defaultValue))"]
                    }
                    rows += entity.relationships.map { r in
                        ["  " + r.name, (r.isToMany ? "[\(r.destination)]" : r.destination) + (r.isOptional ? "?" : ""),
                         "inverse \(r.inverse), delete rule \(r.deleteRule.rawValue)"]
                    }
                    for row in rows { out.line(TableWriter.pad(row, widths: Self.widths(rows))) }
                    for index in entity.indexes { out.line("  index (\(index.joined(separator: ", ")))") }
                    for constraint in entity.uniquenessConstraints { out.line("  unique (\(constraint.joined(separator: ", ")))") }
                }
            }
            try out.flush()
        }
    }

    /// One line per version: number, LSN, label, then its changes indented below it.
    static func printHistory(_ history: [SchemaHistoryEntry], to out: OutputBuffer) {
        guard !history.isEmpty else {
            out.line("No schema history: the store's snapshot predates it, and no migration followed.")
            return
        }
        let rows = [["version", "LSN", "label", "what"]] + history.enumerated().map { index, entry in
            [String(index + 1), String(entry.lsn), entry.label.isEmpty ? "-" : entry.label,
             index == 0 && entry.changes.isEmpty ? "created" : "migrated, \(entry.changes.count) \(entry.changes.count == 1 ? "change" : "changes")"]
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (index, row) in rows.enumerated() {
            out.line(TableWriter.pad(row, widths: widths))
            if index > 0 { for change in history[index - 1].changes { out.line("    \(change)") } }
        }
    }

    private static func widths(_ rows: [[String]]) -> [Int] {
        (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
    }
}

extension TableWriter {
    /// `cells` left-aligned in `widths`, two spaces apart, without trailing spaces.
    static func pad(_ cells: [String], widths: [Int]) -> String {
        cells.enumerated().map { $1 + String(repeating: " ", count: widths[$0] - $1.count) }
            .joined(separator: "  ").trimmingTrailingSpaces()
    }
}
