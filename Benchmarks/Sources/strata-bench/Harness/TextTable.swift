/// A plain-text table as the report prints it: the first row is the header, then a rule, then
/// the other rows; columns are two spaces apart, left-aligned except the `rightAligned` ones.
enum TextTable {
    static func render(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        guard let first = rows.first else { return "" }
        let widths = first.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return rightAligned.contains(column) ? padding + row[column] : row[column] + padding
            }.joined(separator: "  ")
        }
        let rule = String(repeating: "-", count: lines[0].count)
        return ([lines[0], rule] + lines.dropFirst()).joined(separator: "\n")
    }
}
