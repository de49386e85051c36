import ArgumentParser
import Strata

/// How `query` and `export` print rows.
enum RowFormat: String, ExpressibleByArgument, CaseIterable {
    /// Aligned columns with a header, for people.
    case table
    /// One JSON array of objects.
    case json
    /// One JSON object per line (what `import` reads).
    case jsonl
    /// RFC 4180 CSV with a header line (what `import` reads); nil is an empty field, an empty
    /// string is `""`.
    case csv

    /// The pseudo-key that prints a row's primary key (`--keys _pk,name`).
    static let primaryKey = "_pk"

    /// Writes `rows` (with `keys`, where ``primaryKey`` stands for the primary key) to `output`.
    func write(_ rows: StoredRows, keys: [String], to output: OutputBuffer, progress: inout ProgressBar) {
        let cells: (StoredRow) -> [(key: String, value: AttributeValue)] = { row in
            keys.map { key in
                key == Self.primaryKey ? (key, .int(row.primaryKey))
                    : (key, row.values[rows.keys.firstIndex(of: key)!])
            }
        }
        switch self {
        case .table:
            // Two passes (to text, then aligned): each is half of the bar.
            var texts: [[String]] = []
            texts.reserveCapacity(rows.rows.count)
            for (index, row) in rows.rows.enumerated() {
                texts.append(cells(row).map { RowText.text(of: $0.value) })
                progress.update((index + 1) / 2)
            }
            TableWriter(header: keys, rows: texts).write(to: output) { progress.update((rows.rows.count + $0) / 2) }
        case .json:
            output.line("[")
            for (index, row) in rows.rows.enumerated() {
                output.line("  " + RowText.jsonObject(cells(row)) + (index + 1 < rows.rows.count ? "," : ""))
                progress.update(index + 1)
            }
            output.line("]")
        case .jsonl:
            for (index, row) in rows.rows.enumerated() {
                output.line(RowText.jsonObject(cells(row)))
                progress.update(index + 1)
            }
        case .csv:
            output.line(CSV.line(keys.map(Optional.some)))
            for (index, row) in rows.rows.enumerated() {
                output.line(CSV.line(cells(row).map { $0.value.isNull ? nil : RowText.text(of: $0.value) }))
                progress.update(index + 1)
            }
        }
    }
}

/// Aligned text columns: a header, a rule, the rows; numbers right-aligned.
struct TableWriter {
    var header: [String]
    var rows: [[String]]

    /// Writes the table, calling `rendered` with the number of rows written so far.
    func write(to output: OutputBuffer, rendered: (Int) -> Void = { _ in }) {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        let numeric = header.indices.map { column in
            !rows.isEmpty && rows.allSatisfy { Double($0[column]) != nil || $0[column] == "nil" }
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return numeric[i] ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        output.line(render(header))
        output.line(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        for (index, row) in rows.enumerated() {
            output.line(render(row))
            rendered(index + 1)
        }
    }
}

extension String {
    /// The string without trailing spaces.
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
