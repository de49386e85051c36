import ArgumentParser
import Foundation
import Strata

/// `strata import STORE ENTITY FILE [--format jsonl|csv]`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Insert the rows of a JSON Lines or CSV file, typed by the schema, in one batch insert.",
        discussion: """
            All or nothing: the first bad line stops the import with file:line and why, and \
            nothing is written. In JSON Lines a missing key is nil (or the default); a date is \
            ISO 8601 or seconds since 1970; binary data is base64; a to-one relationship is the \
            destination's primary key. A CSV file starts with a header line of keys; an empty \
            field is missing (nil, or the default) and "" is an empty string.

            Example:
              strata import people.strata Person people.jsonl
            """)

    @OptionGroup var target: EntityArguments
    @OptionGroup var key: KeyFileOption

    @Argument(help: "The file to import.")
    var file: String

    @Option(help: "jsonl or csv (default: from the file's extension, jsonl unless .csv).")
    var format: ImportFormat?

    func run() throws {
        try reportingFailures {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw InspectorFailure(.notAStore, "cannot read \(file); check the path.")
            }
            let store = try WritableStore.open(target.store, key: key)
            defer { try? store.close() }
            let properties = try store.storedProperties(of: target.entity)
            // A byte-order mark (spreadsheets write one) is not part of the first key.
            let text = String(String(decoding: data, as: UTF8.self).trimmingPrefix("\u{FEFF}"))
            let kind = format ?? (file.lowercased().hasSuffix(".csv") ? .csv : .jsonl)
            let (rows, lines) = try kind.rows(text, file: file, properties: properties)
            var request = rows.request(entityName: target.entity)
            request.resultType = .count
            let result: BatchResult
            // The batch insert reports no progress of its own: a status line while it runs.
            do {
                let status = StatusLine("Inserting \(lines.count) rows in one transaction…")
                defer { status.clear() }
                do { result = try store.execute(request) }
                catch let error as StrataError { throw Self.locate(error, lines: lines, file: file) }
            }
            print("Imported \(InfoCommand.plural(result.count ?? lines.count, "\(target.entity) row"))" + (result.lsn > 0 ? " (LSN \(result.lsn))." : "."))
        }
    }

    /// Maps "Row N of the batch insert" in a batch insert error back to the file's line.
    static func locate(_ error: StrataError, lines: [Int], file: String) -> any Error {
        guard error.code != .unknownEntity,
              let match = error.message.firstMatch(of: /^Row (\d+) of the batch insert(: | )/),
              let index = Int(match.1), lines.indices.contains(index) else { return error }
        var why = String(error.message[match.range.upperBound...])
        why = why.replacingOccurrences(of: " Nothing was written.", with: "")
        if why.hasPrefix("has ") { why = "the row " + why }
        return InspectorFailure(.badImportLine, "\(file):\(lines[index]): \(why) Nothing was imported.")
    }
}

/// The formats `import` reads.
enum ImportFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, csv

    /// The rows of `text` and the line each starts on.
    ///
    /// - Throws: ``InspectorFailure`` `.badImportLine` naming `file:line` and why.
    func rows(_ text: String, file: String, properties: [StoredProperty]) throws -> (ImportedRows, [Int]) {
        func bad(_ line: Int, _ why: String) -> InspectorFailure {
            InspectorFailure(.badImportLine, "\(file):\(line): \(why). Nothing was imported.")
        }
        var rows: [[String: AttributeValue]] = []
        var lines: [Int] = []
        switch self {
        case .jsonl:
            // "\r\n" is one Character in Swift: split on it too, for files written on Windows.
            let all = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
            var progress = ProgressBar("Reading \(file)", total: all.count)
            for (index, line) in all.enumerated() {
                progress.update(index + 1)
                guard !line.allSatisfy(\.isWhitespace) else { continue }
                do { rows.append(try RowText.row(jsonLine: String(line), properties: properties)) }
                catch { throw bad(index + 1, NearestName.message(for: error)) }
                lines.append(index + 1)
            }
            progress.finish()
        case .csv:
            let records: [CSV.Record]
            do { records = try CSV.records(text) } catch { throw bad(error.line, error.reason) }
            guard let header = records.first else { return (.rows([]), []) }
            var keys: [StoredProperty] = []
            for field in header.fields {
                do { keys.append(try RowText.property(named: field ?? "", in: properties)) }
                catch { throw bad(header.line, NearestName.message(for: error)) }
            }
            // Column by column: one array per key, no dictionary per row.
            var columns = [[AttributeValue?]](repeating: [], count: keys.count)
            for index in columns.indices { columns[index].reserveCapacity(records.count - 1) }
            lines.reserveCapacity(records.count - 1)
            var progress = ProgressBar("Reading \(file)", total: records.count)
            for record in records.dropFirst() {
                progress.update(record.line)
                guard record.fields.count == keys.count else {
                    throw bad(record.line, "\(record.fields.count) fields where the header has \(keys.count)")
                }
                for (column, field) in record.fields.enumerated() {
                    // Empty: missing, so the default applies.
                    guard let field else { columns[column].append(nil); continue }
                    do { columns[column].append(try RowText.value(parsing: field, for: keys[column])) }
                    catch { throw bad(record.line, NearestName.message(for: error)) }
                }
                lines.append(record.line)
            }
            progress.finish()
            return (.columns(keys: keys.map(\.name), values: columns), lines)
        }
        return (.rows(rows), lines)
    }
}

/// What an import read: JSON Lines rows as dictionaries, or CSV columns (one array per key,
/// `nil` where a field was empty).
enum ImportedRows {
    case rows([[String: AttributeValue]])
    case columns(keys: [String], values: [[AttributeValue?]])

    /// The batch insert of these rows into `entityName`: a CSV import fills each row from the
    /// columns as the insert reads it, so no dictionary per row is ever kept.
    func request(entityName: String) -> BatchInsertRequest {
        switch self {
        case .rows(let rows):
            return BatchInsertRequest(entityName: entityName, objects: rows)
        case .columns(let keys, let values):
            return BatchInsertRequest(entityName: entityName, count: values.first?.count ?? 0) { index, row in
                for column in keys.indices {
                    if let value = values[column][index] { row[keys[column]] = value }
                }
            }
        }
    }
}
