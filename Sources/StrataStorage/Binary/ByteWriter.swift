/// Appends little-endian integers, floats and byte runs to a growing buffer.
package struct ByteWriter {
    /// The bytes written so far.
    package var bytes: [UInt8]

    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package var count: Int { bytes.count }

    package mutating func write(_ value: UInt8) { bytes.append(value) }
    package mutating func write(_ value: UInt16) { append(littleEndian: value) }
    package mutating func write(_ value: UInt32) { append(littleEndian: value) }
    package mutating func write(_ value: UInt64) { append(littleEndian: value) }
    package mutating func write(_ value: Int64) { append(littleEndian: UInt64(bitPattern: value)) }
    package mutating func write(_ value: Double) { append(littleEndian: value.bitPattern) }
    package mutating func write(_ bytes: some Collection<UInt8>) { self.bytes.append(contentsOf: bytes) }
    package mutating func write(raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    /// A length-prefixed (UInt32) UTF-8 string, copied straight from the string's storage.
    package mutating func writeString(_ string: String) {
        let utf8 = string.utf8
        write(UInt32(utf8.count))
        // Native strings are contiguous UTF-8; only a bridged one takes the element-wise copy.
        if utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: utf8)
        }
    }

    /// Overwrites 4 bytes at `offset` with `value`, little-endian.
    package mutating func patch(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    private mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
