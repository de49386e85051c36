/// Hand-made LZ4 blocks that expand as far as the format allows, for the tests of the
/// decompression bounds. Building them costs O(stored bytes), so a test can describe a
/// 256 MiB expansion without ever holding 256 MiB.
enum CraftedLZ4 {
    /// One LZ4 block that decompresses to `prefix`, then zero bytes up to `rawLength` in all:
    /// the literals `prefix + [0]`, one match of offset 1 (repeating that zero), and 12
    /// literal zeros (LZ4 requires the block to end with literals, and the last match to end
    /// at least 12 bytes before the end).
    static func block(prefix: [UInt8], rawLength: Int) -> [UInt8] {
        let literals = prefix + [0]
        let matchLength = rawLength - literals.count - 12
        precondition(matchLength >= 4, "rawLength too small for a match")
        var out: [UInt8] = []
        out.reserveCapacity(literals.count + matchLength / 255 + 32)
        let literalNibble = min(literals.count, 15), matchNibble = min(matchLength - 4, 15)
        out.append(UInt8(literalNibble << 4 | matchNibble))
        if literalNibble == 15 { appendLength(literals.count - 15, to: &out) }
        out += literals
        out += [1, 0]  // offset 1, little-endian
        if matchNibble == 15 { appendLength(matchLength - 4 - 15, to: &out) }
        out.append(12 << 4)  // the last sequence: 12 literals, no match
        out += [UInt8](repeating: 0, count: 12)
        return out
    }

    /// LZ4's length extension: 255s, then the remainder (a byte below 255).
    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        var rest = length
        while rest >= 255 {
            out.append(255)
            rest -= 255
        }
        out.append(UInt8(rest))
    }
}
