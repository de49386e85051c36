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
    /// Works on the UTF-8 bytes: every character CSV gives a meaning to (comma, quote, CR,
    /// LF) is ASCII, so it never appears inside another character's encoding, and a field is
    /// made from its bytes in one step.
    ///
    /// - Throws: ``SyntaxError`` for a quote that is never closed or text after a closing quote.
    /// - Complexity: O(n) in the length of `text`.
    static func records(_ text: String) throws(SyntaxError) -> [Record] {
        var text = text
        return try text.withUTF8 { bytes in
            var parser = Parser(bytes: bytes)
            return parser.records()
        }.get()
    }

    /// One pass over a file's bytes.
    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// The 1-based line `index` is on.
        var line = 1
        /// A quoted field's bytes with each `""` made one quote.
        var unescaped: [UInt8] = []

        static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""),
                   lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func records() -> Result<[Record], SyntaxError> {
            var records: [Record] = []
            var width = 0
            while index < bytes.count {
                let recordLine = line
                var fields: [String?] = []
                fields.reserveCapacity(width)
                while true {
                    switch field(recordLine: recordLine) {
                    case .success(let value): fields.append(value)
                    case .failure(let error): return .failure(error)
                    }
                    if index < bytes.count, bytes[index] == Self.comma {
                        index += 1
                        continue
                    }
                    skipLineBreak()
                    break
                }
                width = fields.count
                if !(fields.count == 1 && fields[0] == nil) { records.append(Record(fields: fields, line: recordLine)) }
            }
            return .success(records)
        }

        /// Reads one field, leaving `index` on the comma, line break or end after it: `nil`
        /// when it is empty and unquoted.
        private mutating func field(recordLine: Int) -> Result<String?, SyntaxError> {
            guard index < bytes.count, bytes[index] == Self.quote else {
                let start = index
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == Self.comma || byte == Self.lineFeed || byte == Self.carriageReturn { break }
                    index += 1
                }
                guard index > start else { return .success(nil) }
                return .success(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            }
            index += 1
            unescaped.removeAll(keepingCapacity: true)
            var start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == Self.quote {
                    unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    index += 1
                    guard index < bytes.count, bytes[index] == Self.quote else {
                        return closed()
                    }
                    unescaped.append(Self.quote)
                    index += 1
                    start = index
                    continue
                }
                if byte == Self.lineFeed {
                    line += 1
                } else if byte == Self.carriageReturn, index + 1 == bytes.count || bytes[index + 1] != Self.lineFeed {
                    line += 1
                }
                index += 1
            }
            return .failure(SyntaxError(line: recordLine, reason: "a quoted field is never closed"))
        }

        /// The quoted field just closed, unless text follows its closing quote.
        private func closed() -> Result<String?, SyntaxError> {
            if index < bytes.count {
                let byte = bytes[index]
                if byte != Self.comma && byte != Self.lineFeed && byte != Self.carriageReturn {
                    return .failure(SyntaxError(line: line, reason: "text after a closing quote"))
                }
            }
            return .success(String(decoding: unescaped, as: UTF8.self))
        }

        /// Steps over one line break (LF, CRLF or CR) at `index`, if any.
        private mutating func skipLineBreak() {
            guard index < bytes.count else { return }
            if bytes[index] == Self.carriageReturn, index + 1 < bytes.count, bytes[index + 1] == Self.lineFeed {
                index += 2
            } else {
                index += 1
            }
            line += 1
        }
    }
}
