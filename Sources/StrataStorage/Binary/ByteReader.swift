/// Reads little-endian values from a byte buffer, checking every length against what is
/// left before reading or allocating. A read past the end throws ``ByteReader/Truncated``.
struct ByteReader {
    /// Thrown when a read would go past the end of the buffer.
    struct Truncated: Error {}

    let bytes: [UInt8]
    private(set) var offset: Int
    let end: Int

    init(_ bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset >= end }

    mutating func readUInt8() throws -> UInt8 {
        guard remaining >= 1 else { throw Truncated() }
        defer { offset += 1 }
        return bytes[offset]
    }
    mutating func readUInt16() throws -> UInt16 { try readInteger() }
    mutating func readUInt32() throws -> UInt32 { try readInteger() }
    mutating func readUInt64() throws -> UInt64 { try readInteger() }
    mutating func readInt64() throws -> Int64 { Int64(bitPattern: try readInteger()) }
    mutating func readDouble() throws -> Double { Double(bitPattern: try readInteger()) }

    /// Reads `count` bytes; `count` is checked against what is left first.
    mutating func readBytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw Truncated() }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Reads a length-prefixed (UInt32) UTF-8 string; invalid UTF-8 is repaired.
    mutating func readString() throws -> String {
        let length = Int(try readUInt32())
        return String(decoding: try readBytes(length), as: UTF8.self)
    }

    mutating func skip(_ count: Int) throws { _ = try readBytes(count) }

    private mutating func readInteger<T: FixedWidthInteger>() throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw Truncated() }
        var value: T = 0
        for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
        offset += size
        return value
    }
}
