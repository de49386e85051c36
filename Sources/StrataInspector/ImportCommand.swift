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
            let kind = format ?? (file.lowercased().hasSuffix(".csv") ? .csv : .jsonl)
            let (rows, lines) = try kind.rows(data, file: file, properties: properties)
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

    /// The rows of a file's contents, `data`, and the line each starts on. A byte-order
    /// mark at the start (spreadsheets write one) is not part of the first key or value.
    ///
    /// - Throws: ``InspectorFailure`` `.badImportLine` naming `file:line` and why.
    func rows(_ data: Data, file: String, properties: [StoredProperty]) throws -> (ImportedRows, [Int]) {
        func bad(_ line: Int, _ why: String) -> InspectorFailure {
            InspectorFailure(.badImportLine, "\(file):\(line): \(why). Nothing was imported.")
        }
        switch self {
        case .jsonl:
            let text = String(String(decoding: data, as: UTF8.self).trimmingPrefix("\u{FEFF}"))
            var rows: [[String: AttributeValue]] = []
            var lines: [Int] = []
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
            return (.rows(rows), lines)
        case .csv:
            let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
            let skipped = data.starts(with: byteOrderMark) ? byteOrderMark.count : 0
            return try data.withUnsafeBytes { raw in
                let bytes = UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[skipped...])
                return try Self.csvColumns(bytes, file: file, properties: properties, bad: bad)
            }
        }
    }

    /// A CSV file's columns, read record by record: each field typed by its header key as
    /// it is read, one array per key, nothing kept per record.
    private static func csvColumns(
        _ bytes: UnsafeBufferPointer<UInt8>, file: String, properties: [StoredProperty], bad: (Int, String) -> InspectorFailure
    ) throws -> (ImportedRows, [Int]) {
        var keys: [StoredProperty]?
        /// Each key's type, read once (a `StoredProperty` is copied with its strings).
        var types: [AttributeType?] = []
        var columns: [[AttributeValue?]] = []
        var lines: [Int] = []
        var progress = ProgressBar("Reading \(file)", total: bytes.count)
        do {
            try CSV.forEachRecord(in: bytes) { record, line, offset in
                progress.update(offset)
                guard let keys else {
                    var header: [StoredProperty] = []
                    for index in 0..<record.count {
                        do throws(StrataError) { header.append(try RowText.property(named: record.string(index) ?? "", in: properties)) }
                        catch { throw bad(line, NearestName.message(for: error)) }
                    }
                    keys = header
                    types = header.map(\.type)
                    columns = [[AttributeValue?]](repeating: [], count: header.count)
                    // At most one record a line: reserved once rather than grown by copies.
                    let lineBreaks = bytes.reduce(into: 0) { count, byte in if byte == 0x0A { count += 1 } }
                    for index in columns.indices { columns[index].reserveCapacity(lineBreaks + 1) }
                    lines.reserveCapacity(lineBreaks + 1)
                    return
                }
                guard record.count == keys.count else {
                    throw bad(line, "\(record.count) fields where the header has \(keys.count)")
                }
                for column in 0..<record.count {
                    // Empty: missing, so the default applies.
                    guard let field = record.bytes(column) else { columns[column].append(nil); continue }
                    if let value = RowText.value(parsingUTF8: field, type: types[column]) { columns[column].append(value); continue }
                    do throws(StrataError) {
                        columns[column].append(try RowText.value(parsing: String(decoding: field, as: UTF8.self), for: keys[column]))
                    }
                    catch { throw bad(line, NearestName.message(for: error)) }
                }
                lines.append(line)
            }
        } catch let error as CSV.SyntaxError {
            throw bad(error.line, error.reason)
        }
        progress.finish()
        guard let keys else { return (.rows([]), []) }
        return (.columns(keys: keys.map(\.name), values: columns), lines)
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
