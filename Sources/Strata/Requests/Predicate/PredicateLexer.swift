/// One token of a predicate format string.
struct PredicateToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A name or keyword; `escaped` when written with a leading `#` (never a keyword).
        case identifier(String, escaped: Bool)
        case integer(Int64)
        case double(Double)
        case string(String)
        /// `$name`.
        case variable(String)
        /// `@count`, `@sum`…: the name after `@`, as written.
        case aggregate(String)
        /// `%@`, `%K`, `%d`, `%i`, `%f`: the character after `%`.
        case argument(Character)
        /// Punctuation and operators, normalized: `=` is `==`, `<>` is `!=`, `=<` is `<=`,
        /// `=>` is `>=`.
        case symbol(String)
        case end
    }

    var kind: Kind
    /// 0-based `Character` offset of the token's first character.
    var offset: Int
    /// The token as written.
    var text: String

    /// How the token reads in an error message.
    var quoted: String {
        if case .end = kind { return "the end of the format" }
        return "'\(text)'"
    }
}

/// Splits a predicate format string into tokens. It reads Unicode scalars (so a combining
/// mark after a quote cannot hide the quote); positions are reported as `Character` offsets.
struct PredicateLexer {
    private let chars: [Unicode.Scalar]
    private let format: String
    private var position = 0

    init(_ format: String) {
        self.format = format
        self.chars = Array(format.unicodeScalars)
    }

    /// The `Character` offset of scalar offset `scalarOffset`.
    private func characterOffset(_ scalarOffset: Int) -> Int {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: chars[..<min(scalarOffset, chars.count)])
        return String(view).count
    }

    /// Every token, ending with `.end`.
    /// - Throws: ``PredicateSyntaxError`` for a character that starts no token, a bad escape,
    ///   an unterminated string or an out-of-range integer.
    static func tokenize(_ format: String) throws(PredicateSyntaxError) -> [PredicateToken] {
        var lexer = PredicateLexer(format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if case .end = token.kind { return tokens }
        }
    }

    /// Whether `name` can be written as a bare key path component.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierStart(first) else { return false }
        return name.unicodeScalars.dropFirst().allSatisfy(isIdentifierPart)
    }

    static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || (c.isASCII ? ("a"..."z").contains(c) || ("A"..."Z").contains(c) : c.properties.isAlphabetic)
    }
    static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool { isIdentifierStart(c) || isDigit(c) }
    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < chars.count ? chars[position + ahead] : nil
    }

    private func error(at offset: Int, expected: String, found: String? = nil) -> PredicateSyntaxError {
        let shown = found ?? (offset < chars.count ? "'\(chars[offset])'" : "the end of the format")
        return PredicateSyntaxError(format: format, offset: characterOffset(offset), expected: expected,
                                    found: shown)
    }

    private func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
        PredicateToken(kind: kind, offset: characterOffset(start), text: text(start..<position))
    }

    private mutating func next() throws(PredicateSyntaxError) -> PredicateToken {
        while let c = peek(), c.properties.isWhitespace { position += 1 }
        let start = position
        guard let c = peek() else {
            return PredicateToken(kind: .end, offset: characterOffset(start), text: "")
        }

        if Self.isIdentifierStart(c) {
            let name = readName()
            return token(.identifier(name, escaped: false), from: start)
        }
        if Self.isDigit(c) || (c == "-" && peek(1).map(Self.isDigit) == true) {
            return try readNumber(from: start)
        }
        switch c {
        case "\"", "'":
            return try readString(quote: c)
        case "#", "$", "@":
            position += 1
            guard let n = peek(), Self.isIdentifierStart(n) else {
                throw error(at: position, expected: "a name after '\(c)'")
            }
            let name = readName()
            let kind: PredicateToken.Kind = c == "#" ? .identifier(name, escaped: true)
                : c == "$" ? .variable(name) : .aggregate(name)
            return token(kind, from: start)
        case "%":
            position += 1
            guard let n = peek(), "@Kdif".unicodeScalars.contains(n) else {
                throw error(at: position, expected: "an argument specifier %@, %K, %d, %i or %f")
            }
            position += 1
            return token(.argument(Character(n)), from: start)
        default:
            return try readSymbol(from: start)
        }
    }

    private mutating func readName() -> String {
        let start = position
        while let c = peek(), Self.isIdentifierPart(c) { position += 1 }
        return text(start..<position)
    }

    private func text(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: chars[range])
        return String(view)
    }

    private mutating func readSymbol(from start: Int) throws(PredicateSyntaxError) -> PredicateToken {
        let two = peek(1).map { text(position..<position + 1) + String($0) } ?? ""
        let normalizedTwo: [String: String] = [
            "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", "=<": "<=", ">=": ">=", "=>": ">=",
            "&&": "&&", "||": "||",
        ]
        if let symbol = normalizedTwo[two] {
            position += 2
            return token(.symbol(symbol), from: start)
        }
        let one = String(chars[position])
        if one == "=" {
            position += 1
            return token(.symbol("=="), from: start)
        }
        if ["(", ")", "{", "}", "[", "]", ",", ".", "<", ">", "!"].contains(one) {
            position += 1
            return token(.symbol(one), from: start)
        }
        throw error(at: start, expected: "a key, a value, an operator or a parenthesis")
    }

    private mutating func readNumber(from start: Int) throws(PredicateSyntaxError) -> PredicateToken {
        if peek() == "-" { position += 1 }
        func digits() { while let c = peek(), Self.isDigit(c) { position += 1 } }
        digits()
        var isDouble = false
        if peek() == ".", let d = peek(1), Self.isDigit(d) {
            isDouble = true
            position += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            var ahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { ahead = 2 }
            if let d = peek(ahead), Self.isDigit(d) {
                isDouble = true
                position += ahead
                digits()
            }
        }
        let text = text(start..<position)
        if isDouble {
            guard let value = Double(text) else {
                throw error(at: start, expected: "a number", found: "'\(text)'")
            }
            return token(.double(value), from: start)
        }
        guard let value = Int64(text) else {
            throw error(at: start, expected: "an integer between \(Int64.min) and \(Int64.max)",
                        found: "'\(text)'")
        }
        return token(.integer(value), from: start)
    }

    private mutating func readString(quote: Unicode.Scalar) throws(PredicateSyntaxError) -> PredicateToken {
        let start = position
        position += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let c = peek() else {
                throw error(at: start, expected: "a closing \(quote) for this string",
                            found: "the end of the format")
            }
            position += 1
            if c == quote { break }
            guard c == "\\" else {
                value.append(c)
                continue
            }
            let escapeStart = position - 1
            guard let e = peek() else {
                throw error(at: escapeStart, expected: "an escape such as \\n after '\\'")
            }
            position += 1
            switch e {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "\\", "'", "\"": value.append(e)
            case "u":
                value.append(try readUnicodeEscape(escapeStart: escapeStart))
            default:
                throw error(at: escapeStart,
                            expected: "an escape \\n, \\t, \\r, \\0, \\\\, \\', \\\" or \\uXXXX",
                            found: "'\\\(e)'")
            }
        }
        return token(.string(String(value)), from: start)
    }

    /// Reads the four hex digits after `\u` (and a low surrogate's `\uXXXX` after a high one).
    private mutating func readUnicodeEscape(escapeStart: Int) throws(PredicateSyntaxError) -> Unicode.Scalar {
        func hex4() throws(PredicateSyntaxError) -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let c = peek(), let d = Character(c).hexDigitValue else {
                    throw error(at: escapeStart, expected: "four hex digits after \\u")
                }
                v = v * 16 + UInt32(d)
                position += 1
            }
            return v
        }
        let unit = try hex4()
        if (0xD800...0xDBFF).contains(unit) {
            guard peek() == "\\", peek(1) == "u" else {
                throw error(at: escapeStart, expected: "a low surrogate \\uDC00…\\uDFFF after a high surrogate")
            }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error(at: escapeStart, expected: "a low surrogate \\uDC00…\\uDFFF after a high surrogate")
            }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(unit) else {
            throw error(at: escapeStart, expected: "a Unicode scalar value (not a lone surrogate)")
        }
        return scalar
    }
}
