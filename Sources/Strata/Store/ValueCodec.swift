import Foundation
internal import StrataStorage

/// The binary encoding of an ``AttributeValue`` in log payloads: a tag byte, then the value.
///
/// Tags: 0 null, 1 false, 2 true, 3 int64, 4 double, 5 string (u32 length + UTF-8),
/// 6 date (double seconds since 2001), 7 UUID (16 bytes), 8 binary (u32 length + bytes).
enum ValueCodec {
    static func write(_ value: AttributeValue, into w: inout ByteWriter) {
        w.write(PayloadCursor.payload(count: encodedCount(value)) { write(value, into: &$0) })
    }

    /// Writes `value` into a cursor with at least ``encodedCount(_:)`` bytes left.
    static func write(_ value: AttributeValue, into w: inout PayloadCursor) {
        switch value {
        case .null: w.write(UInt8(0))
        case .bool(let b): w.write(UInt8(b ? 2 : 1))
        case .int(let i): w.write(UInt8(3)); w.write(i)
        case .double(let d): w.write(UInt8(4)); w.write(d)
        case .string(let s): w.write(UInt8(5)); w.writeString(s)
        case .date(let d): w.write(UInt8(6)); w.write(d.timeIntervalSinceReferenceDate)
        case .uuid(let u): w.write(UInt8(7)); withUnsafeBytes(of: u.uuid) { w.write($0) }
        case .binary(let d):
            w.write(UInt8(8))
            w.write(UInt32(d.count))
            d.withUnsafeBytes { w.write($0) }
        }
    }

    /// The number of bytes ``write(_:into:)`` writes for `value`.
    static func encodedCount(_ value: AttributeValue) -> Int {
        switch value {
        case .null, .bool: return 1
        case .int, .double, .date: return 9
        case .string(let s): return 5 + s.utf8.count
        case .uuid: return 17
        case .binary(let d): return 5 + d.count
        }
    }

    static func read(from r: inout ByteReader) throws -> AttributeValue {
        switch try r.readUInt8() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(try r.readInt64())
        case 4: return .double(try r.readDouble())
        case 5: return .string(try r.readString())
        case 6: return .date(Date(timeIntervalSinceReferenceDate: try r.readDouble()))
        case 7:
            let t = Array(try r.readBytes(16))
            return .uuid(UUID(uuid: (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15])))
        case 8: return .binary(Data(try r.readBytes(Int(try r.readUInt32()))))
        case let tag: throw PayloadError("unknown value tag \(tag)")
        }
    }
}

/// A log payload that does not decode: always reported as corruption of the store.
struct PayloadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
