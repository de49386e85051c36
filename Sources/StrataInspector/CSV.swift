/// RFC 4180 CSV, with one extension: an empty unquoted field is nil and `""` is an empty
/// string, so that nil and "" survive a round trip.
enum CSV {
    /// One line: fields quoted when they contain a comma, quote, line break or leading or
    /// trailing space, or are empty strings.
    static func line(_ fields: [String?]) -> String {
        fields.map { field in
            guard let field else { return "" }
            let needsQuotes = field.isEmpty || field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline })
                || field.first == " " || field.last == " "
            return needsQuotes ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }.joined(separator: ",")
    }

    /// A record read from a CSV file: its fields and the line it starts on (1-based).
    struct Record {
        var fields: [String?]
        var line: Int
    }

    /// Why a CSV file cannot be read, at a 1-based line.
    struct SyntaxError: Error {
        var line: Int
        var reason: String
    }

    /// Parses `text` into records, skipping blank lines.
    ///
    /// - Throws: ``SyntaxError`` for a quote that is never closed or text after a closing quote.
    static func records(_ text: String) throws(SyntaxError) -> [Record] {
        var records: [Record] = []
        var fields: [String?] = []
        var field = ""
        var quoted = false, inQuotes = false, afterQuote = false
        var line = 1, recordLine = 1
        var characters = text.makeIterator()
        var pending: Character? = nil
        func endField() {
            fields.append(quoted || !field.isEmpty ? field : nil)
            field = ""
            quoted = false
            afterQuote = false
        }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0] == nil) { records.append(Record(fields: fields, line: recordLine)) }
            fields = []
        }
        while let c = pending ?? characters.next() {
            pending = nil
            if inQuotes {
                if c == "\"" {
                    if let next = characters.next() {
                        if next == "\"" { field.append("\"") } else { inQuotes = false; afterQuote = true; pending = next }
                    } else { inQuotes = false; afterQuote = true }
                } else {
                    if c.isNewline { line += 1 }
                    field.append(c)
                }
                continue
            }
            switch c {
            case ",": endField()
            case "\n", "\r\n", "\r":
                endRecord()
                line += 1
                recordLine = line
            case "\"" where field.isEmpty && !quoted:
                quoted = true
                inQuotes = true
            default:
                if afterQuote { throw SyntaxError(line: line, reason: "text after a closing quote") }
                field.append(c)
            }
        }
        if inQuotes { throw SyntaxError(line: recordLine, reason: "a quoted field is never closed") }
        if !field.isEmpty || quoted || !fields.isEmpty { endRecord() }
        return records
    }
}
