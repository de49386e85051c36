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

    /// Why a CSV file cannot be read, at a 1-based line.
    struct SyntaxError: Error {
        var line: Int
        var reason: String
    }

    /// Reads `bytes` one record at a time, skipping blank lines, and calls `body` with each
    /// record, the 1-based line it starts on, and how many bytes have been read. Nothing is
    /// kept between records: a ``Record`` is valid only during the call.
    ///
    /// Works on the UTF-8 bytes: every character CSV gives a meaning to (comma, quote, CR,
    /// LF) is ASCII, so it never appears inside another character's encoding; a field is a
    /// range of the file's bytes (a quoted one with doubled quotes: of a scratch copy), made
    /// into a value only by whoever reads it.
    ///
    /// - Throws: ``SyntaxError`` for a quote that is never closed or text after a closing
    ///   quote, or what `body` throws.
    /// - Complexity: O(n) in the length of `bytes`.
    static func forEachRecord(
        in bytes: UnsafeBufferPointer<UInt8>, _ body: (_ record: Record, _ line: Int, _ offset: Int) throws -> Void
    ) throws {
        var parser = Parser(bytes: bytes)
        var fields: [Field] = []
        while let line = try parser.nextRecord(into: &fields).get() {
            try parser.unescaped.withUnsafeBufferPointer { scratch in
                try body(Record(file: bytes, scratch: scratch, fields: fields), line, parser.index)
            }
        }
    }

    /// Where a field's bytes are: `start..<end` of the file, or of the record's scratch
    /// bytes (a quoted field, its doubled quotes made one); `nil` (empty and unquoted) when
    /// `start < 0`.
    struct Field {
        var start: Int
        var end: Int
        var inScratch: Bool

        static let missing = Field(start: -1, end: -1, inScratch: false)
    }

    /// One record's fields, readable while ``forEachRecord(in:_:)`` calls its body.
    struct Record {
        let file: UnsafeBufferPointer<UInt8>
        let scratch: UnsafeBufferPointer<UInt8>
        let fields: [Field]

        /// The number of fields.
        var count: Int { fields.count }

        /// Field `index`'s bytes, or `nil` when it is empty and unquoted.
        func bytes(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
            let field = fields[index]
            guard field.start >= 0 else { return nil }
            return UnsafeBufferPointer(rebasing: (field.inScratch ? scratch : file)[field.start..<field.end])
        }

        /// Field `index` as text (invalid UTF-8 repaired), or `nil` when it is empty and unquoted.
        func string(_ index: Int) -> String? {
            bytes(index).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// One pass over a file's bytes.
    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// The 1-based line `index` is on.
        var line = 1
        /// The current record's quoted fields, each `""` made one quote.
        var unescaped: [UInt8] = []

        static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""),
                   lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        /// Reads the next record that is not a blank line into `fields`, returning the line it
        /// starts on, or `nil` at the end.
        mutating func nextRecord(into fields: inout [Field]) -> Result<Int?, SyntaxError> {
            while index < bytes.count {
                let recordLine = line
                fields.removeAll(keepingCapacity: true)
                unescaped.removeAll(keepingCapacity: true)
                while true {
                    switch field(recordLine: recordLine) {
                    case .success(let field): fields.append(field)
                    case .failure(let error): return .failure(error)
                    }
                    if index < bytes.count, bytes[index] == Self.comma {
                        index += 1
                        continue
                    }
                    skipLineBreak()
                    break
                }
                if !(fields.count == 1 && fields[0].start < 0) { return .success(recordLine) }
            }
            return .success(nil)
        }

        /// Reads one field, leaving `index` on the comma, line break or end after it.
        private mutating func field(recordLine: Int) -> Result<Field, SyntaxError> {
            guard index < bytes.count, bytes[index] == Self.quote else {
                let start = index
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == Self.comma || byte == Self.lineFeed || byte == Self.carriageReturn { break }
                    index += 1
                }
                guard index > start else { return .success(.missing) }
                return .success(Field(start: start, end: index, inScratch: false))
            }
            index += 1
            let first = unescaped.count
            var start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == Self.quote {
                    unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    index += 1
                    guard index < bytes.count, bytes[index] == Self.quote else {
                        return closed(Field(start: first, end: unescaped.count, inScratch: true))
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

        /// `field`, the quoted field just closed, unless text follows its closing quote.
        private func closed(_ field: Field) -> Result<Field, SyntaxError> {
            if index < bytes.count {
                let byte = bytes[index]
                if byte != Self.comma && byte != Self.lineFeed && byte != Self.carriageReturn {
                    return .failure(SyntaxError(line: line, reason: "text after a closing quote"))
                }
            }
            return .success(field)
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
