import ArgumentParser
import Foundation
import Strata

/// `strata schema STORE [--json]`.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the stored schema, readable or as JSON (the form `create --schema` reads).",
        discussion: "Example:\n  strata schema todo.strata --json > schema.json")

    @OptionGroup var target: StoreArgument

    @Flag(help: "Print the schema's JSON form.")
    var json = false

    func run() throws {
        try reportingFailures {
            let schema = try StoreInspector.open(at: target.store).store.schema
            let out = OutputBuffer()
            if json {
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
                }
            }
            try out.flush()
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
