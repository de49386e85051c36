/// Writes a log payload of known size front to back into one buffer: little-endian integers,
/// floats, byte runs and length-prefixed strings, as `ByteWriter` writes them.
///
/// A save of a million rows writes several values per row; `ByteWriter` lives in another
/// module, so each of its writes is a call and an array capacity check, which cost more than
/// the write. Each write here is a bounds check and a store, inlined into the encoder, and a
/// wrong size traps instead of writing past the end.
struct PayloadCursor {
    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes written so far.
    private(set) var position = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    /// Calls `body` with a cursor over a new payload of exactly `count` bytes.
    ///
    /// - Precondition: `body` writes exactly `count` bytes.
    static func payload(count: Int, _ body: (inout PayloadCursor) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            var cursor = PayloadCursor(UnsafeMutableRawBufferPointer(bytes))
            body(&cursor)
            precondition(cursor.position == count, "wrote \(cursor.position) of a \(count)-byte payload")
            initialized = count
        }
    }

    mutating func write(_ value: UInt8) { store(value) }
    mutating func write(_ value: UInt16) { store(value.littleEndian) }
    mutating func write(_ value: UInt32) { store(value.littleEndian) }
    mutating func write(_ value: Int64) { store(value.littleEndian) }
    mutating func write(_ value: Double) { store(value.bitPattern.littleEndian) }

    /// Copies `bytes`.
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count <= buffer.count - position, "write past the end of a payload")
        if let source = bytes.baseAddress, let target = buffer.baseAddress {
            (target + position).copyMemory(from: source, byteCount: bytes.count)
        }
        position += bytes.count
    }

    /// A length-prefixed (UInt32) UTF-8 string.
    mutating func writeString(_ string: String) {
        let utf8 = string.utf8
        write(UInt32(utf8.count))
        // Native strings are contiguous UTF-8; only a bridged one takes the element-wise copy.
        if utf8.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) == nil {
            Array(utf8).withUnsafeBytes { write($0) }
        }
    }

    private mutating func store<T: FixedWidthInteger>(_ value: T) {
        precondition(MemoryLayout<T>.size <= buffer.count - position, "write past the end of a payload")
        buffer.storeBytes(of: value, toByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
    }
}
