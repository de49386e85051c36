/// Reads little-endian values from a byte buffer, checking every length against what is
/// left before reading or allocating. A read past the end throws ``ByteReader/Truncated``.
package struct ByteReader {
    /// Thrown when a read would go past the end of the buffer.
    package struct Truncated: Error {}

    package let bytes: [UInt8]
    package private(set) var offset: Int
    package let end: Int

    package init(_ bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    package var remaining: Int { end - offset }
    package var isAtEnd: Bool { offset >= end }

    package mutating func readUInt8() throws -> UInt8 {
        guard remaining >= 1 else { throw Truncated() }
        defer { offset += 1 }
        return bytes[offset]
    }
    package mutating func readUInt16() throws -> UInt16 { try readInteger() }
    package mutating func readUInt32() throws -> UInt32 { try readInteger() }
    package mutating func readUInt64() throws -> UInt64 { try readInteger() }
    package mutating func readInt64() throws -> Int64 { Int64(bitPattern: try readInteger()) }
    package mutating func readDouble() throws -> Double { Double(bitPattern: try readInteger()) }

    /// Reads `count` bytes; `count` is checked against what is left first.
    package mutating func readBytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw Truncated() }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Reads a length-prefixed (UInt32) UTF-8 string; invalid UTF-8 is repaired.
    package mutating func readString() throws -> String {
        let length = Int(try readUInt32())
        return String(decoding: try readBytes(length), as: UTF8.self)
    }

    package mutating func skip(_ count: Int) throws { _ = try readBytes(count) }

    private mutating func readInteger<T: FixedWidthInteger>() throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw Truncated() }
        // One unaligned load (`end <= bytes.count`, checked above), not a loop over the bytes:
        // a footer reads about a dozen integers per chunk (issue 21, the open's cost).
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return T(littleEndian: value)
    }
}
