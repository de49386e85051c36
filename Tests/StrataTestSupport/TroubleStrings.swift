/// Random strings from a small alphabet rich in Unicode trouble for orders and equality:
/// ASCII letters of both cases, "é" precomposed and decomposed, Greek alpha with and without
/// a (combining or precomposed) tonos, "Å" three ways (precomposed, decomposed, the Angstrom
/// sign), Hangul jamo against the syllables they compose to, combining marks alone and
/// stacked in both orders, and a dot above/below pair whose NFC reorders.
public enum TroubleStrings {
    /// The pieces a string is made of.
    public static let pieces: [String] = [
        "a", "b", "e", "x", "z", "A", "E", "Z", "1",
        "\u{E9}", "e\u{301}", "\u{C9}", "E\u{301}",
        "\u{3B1}", "\u{3AC}", "\u{3B1}\u{301}", "\u{391}", "\u{386}",
        "\u{C5}", "A\u{30A}", "\u{212B}", "\u{E5}", "a\u{30A}",
        "\u{1100}", "\u{1161}", "\u{11A8}", "\u{AC00}", "\u{AC01}", "\u{1100}\u{1161}",
        "\u{301}", "\u{323}", "\u{30A}", "\u{301}\u{323}", "\u{323}\u{301}",
        "\u{1E0A}", "\u{1E0C}", "D\u{307}", "D\u{323}\u{307}", "D\u{307}\u{323}", "\u{1E0A}\u{323}",
    ]

    /// A string of 0 to `maxPieces` random pieces (the empty string among them).
    public static func string(_ rng: inout SplitMix64, maxPieces: Int = 5) -> String {
        var result = ""
        for _ in 0..<Int.random(in: 0...maxPieces, using: &rng) { result += pieces.randomElement(using: &rng)! }
        return result
    }

    /// `count` random strings, some of them repeated and some spelled differently but
    /// canonically equivalent, so that equal keys and ties occur.
    public static func strings(_ count: Int, _ rng: inout SplitMix64, maxPieces: Int = 5) -> [String] {
        var result: [String] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            if !result.isEmpty, Int.random(in: 0..<5, using: &rng) == 0 {
                result.append(result.randomElement(using: &rng)!)
            } else {
                result.append(string(&rng, maxPieces: maxPieces))
            }
        }
        return result
    }

    /// The scalars of `string` in hexadecimal, for messages.
    public static func scalars(_ string: String) -> String {
        "[" + string.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") + "]"
    }
}
