import StrataTestSupport

extension SimulatedFileSystem {
    /// Flips every bit of the file at `path` in turn, calling `body` with the bit's number
    /// while the file holds that one change, then puts the original bytes back.
    ///
    /// - Returns: How many bits were flipped (the file's size in bits).
    func forEachBitFlipped(in path: String, _ body: (Int) throws -> Void) rethrows -> Int {
        let original = contents(of: path)!
        for bit in 0..<(original.count * 8) {
            var damaged = original
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            setContents(of: path, to: damaged)
            try body(bit)
        }
        setContents(of: path, to: original)
        return original.count * 8
    }
}
