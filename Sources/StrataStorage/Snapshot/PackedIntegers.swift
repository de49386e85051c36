/// The bit-packed encodings of int64 columns (`docs/FORMAT.md`, section 5.5): values, or the
/// differences between neighbouring values, stored as their distance from the column's
/// smallest one in just as many bits as the largest distance needs.
///
/// A person's age (0–999) takes 10 bits instead of 8 bytes, a run of keys that grow by one
/// takes none; a scan that reads such a column decodes a tenth of the bytes, without the LZ4
/// matches that eight-byte integers with zero high bytes make.
///
/// For example, `[1_000, 1_003, 1_001]` is encoding 2 with reference 1_000 and width 2:
/// the distances 0, 3 and 1, packed least significant bit first into one byte.
enum PackedIntegers {
    /// Encoding 2: `i64 reference`, `u8 width`, then `ceil(n × width / 8)` bytes holding
    /// `v[i] - reference` (wrapping) in `width` bits each.
    static let packed: UInt8 = 2
    /// Encoding 3: `i64 first`, `i64 reference`, `u8 width`, then `ceil((n - 1) × width / 8)`
    /// bytes holding `v[i] - v[i-1] - reference` (wrapping) for `i` in `1..<n`.
    static let packedDelta: UInt8 = 3
    /// The widest field written and read: a field then sits in one unaligned 8-byte load
    /// whatever its bit offset. Columns that need more are written delta-encoded (encoding 1).
    static let widestField = 56

    /// How one int64 column is written: its encoding and, when packed, its fields.
    struct Plan: Equatable {
        var encoding: UInt8
        var first: Int64 = 0
        var reference: Int64 = 0
        var width = 0
    }

    /// The smallest of the delta (1), packed (2) and packed-delta (3) encodings of `values`
    /// (packed ones only when their fields are at most ``widestField`` bits).
    ///
    /// - Complexity: O(`values.count`), one pass.
    static func plan(_ values: [Int64]) -> Plan {
        let n = values.count
        guard n > 0 else { return Plan(encoding: packed) }
        var low = values[0], high = values[0]
        var lowStep = Int64.max, highStep = Int64.min
        var previous = values[0]
        for x in values.dropFirst() {
            low = Swift.min(low, x)
            high = Swift.max(high, x)
            // Differences wrap: a column that jumps across the Int64 range packs no smaller.
            let step = x &- previous
            lowStep = Swift.min(lowStep, step)
            highStep = Swift.max(highStep, step)
            previous = x
        }
        var best = Plan(encoding: ColumnCodec.deltaEncoding)
        var bestLength = 8 * n
        let width = bitWidth(high, above: low)
        if width <= widestField, 9 + packedLength(n, width: width) <= bestLength {
            best = Plan(encoding: packed, reference: low, width: width)
            bestLength = 9 + packedLength(n, width: width)
        }
        if n > 1 {
            let stepWidth = bitWidth(highStep, above: lowStep)
            if stepWidth <= widestField, 17 + packedLength(n - 1, width: stepWidth) < bestLength {
                best = Plan(encoding: packedDelta, first: values[0], reference: lowStep, width: stepWidth)
            }
        }
        return best
    }

    /// Bytes that `count` fields of `width` bits take.
    static func packedLength(_ count: Int, width: Int) -> Int { (count * width + 7) / 8 }

    /// Bits needed for `high - low` (unsigned) with `low <= high`.
    private static func bitWidth(_ high: Int64, above low: Int64) -> Int {
        UInt64.bitWidth - UInt64(bitPattern: high &- low).leadingZeroBitCount
    }

    /// Writes `values` as `plan` says (plan's encoding must be 2 or 3).
    static func write(_ values: [Int64], plan: Plan, into w: inout ByteWriter) {
        if plan.encoding == packedDelta {
            w.write(plan.first)
        }
        w.write(plan.reference)
        w.write(UInt8(plan.width))
        guard plan.width > 0 else { return }
        var fields = BitPacker(width: plan.width)
        if plan.encoding == packedDelta {
            var previous = plan.first
            for x in values.dropFirst() {
                fields.append(UInt64(bitPattern: x &- previous &- plan.reference), into: &w)
                previous = x
            }
        } else {
            for x in values { fields.append(UInt64(bitPattern: x &- plan.reference), into: &w) }
        }
        fields.finish(into: &w)
    }

    /// Accumulates fields of one width into 64-bit words, least significant bit first.
    private struct BitPacker {
        let width: Int
        var word: UInt64 = 0
        var used = 0

        init(width: Int) { self.width = width }

        mutating func append(_ field: UInt64, into w: inout ByteWriter) {
            word |= field << UInt64(used)
            used += width
            guard used >= 64 else { return }
            w.write(word)
            used -= 64
            word = used > 0 ? field >> UInt64(width - used) : 0
        }

        /// Writes the bytes of the last, partial word.
        mutating func finish(into w: inout ByteWriter) {
            var left = used
            while left > 0 {
                w.write(UInt8(truncatingIfNeeded: word))
                word >>= 8
                left -= 8
            }
        }
    }

    /// Steps over `n` values of encoding 2 or 3, checking their width and length as
    /// ``decode(_:encoding:count:column:)`` does.
    static func skip(_ r: inout ColumnCodec.RawReader, encoding: UInt8, count n: Int, column: String) throws {
        _ = try fields(&r, encoding: encoding, count: n, column: column)
    }

    /// Reads the fixed fields of encoding 2 or 3 and slices off the packed bytes.
    private static func fields(_ r: inout ColumnCodec.RawReader, encoding: UInt8, count n: Int, column: String)
        throws -> (first: Int64, reference: Int64, width: Int, packed: UnsafeRawBufferPointer) {
        let delta = encoding == packedDelta
        let first = delta ? Int64(littleEndian: try r.take(8).loadUnaligned(as: Int64.self)) : 0
        let header = try r.take(9)
        let reference = Int64(littleEndian: header.loadUnaligned(as: Int64.self))
        let width = Int(header[8])
        guard width <= widestField else {
            throw ColumnCodec.DecodeError("column \(column) packs its integers in \(width) bits, more than \(widestField)")
        }
        let packed = try r.take(packedLength(delta ? Swift.max(n - 1, 0) : n, width: width))
        return (first, reference, width, packed)
    }

    /// Decodes `n` values of encoding 2 or 3 from the front of `r`, checking the width and
    /// that every byte is there.
    static func decode(_ r: inout ColumnCodec.RawReader, encoding: UInt8, count n: Int, column: String) throws -> [Int64] {
        let delta = encoding == packedDelta
        let (first, reference, width, src) = try fields(&r, encoding: encoding, count: n, column: column)
        return [Int64](unsafeUninitializedCapacity: n) { out, count in
            count = n
            guard n > 0 else { return }
            guard let base = out.baseAddress else { return }
            if width == 0 {
                // Every field is 0: the reference itself, or a step of it from `first`.
                if delta {
                    var x = first
                    for i in 0..<n {
                        (base + i).initialize(to: x)
                        x &+= reference
                    }
                } else {
                    base.initialize(repeating: reference, count: n)
                }
            } else if delta {
                base.initialize(to: first)
                unpack(src, width: width, count: n - 1, into: base + 1)
                // Prefix sums of the steps, each offset by the reference.
                var previous = first
                for i in 1..<n {
                    previous = previous &+ reference &+ base[i]
                    base[i] = previous
                }
            } else {
                unpack(src, width: width, count: n, into: base)
                if reference != 0 {
                    for i in 0..<n { base[i] = base[i] &+ reference }
                }
            }
        }
    }

    /// Writes the `count` fields of `width` bits in `src` to `out` (uninitialized memory).
    /// Fields are read with one unaligned 8-byte load each while 8 bytes remain: a field of at
    /// most ``widestField`` bits fits in one at any bit offset. The last few come from the
    /// bytes that are left.
    private static func unpack(_ src: UnsafeRawBufferPointer, width: Int, count: Int, into out: UnsafeMutablePointer<Int64>) {
        guard width > 0 else {
            out.initialize(repeating: 0, count: count)
            return
        }
        let mask: UInt64 = (1 &<< UInt64(width)) &- 1
        // Field i starts in byte (i × width) / 8; the load stays inside while that is at most
        // src.count - 8.
        let whole = src.count >= 8 ? Swift.min(count, ((src.count &- 8) &* 8) / width &+ 1) : 0
        if let bytes = src.baseAddress {
            var bit = 0
            for i in 0..<whole {
                let word = UInt64(littleEndian: (bytes + (bit &>> 3)).loadUnaligned(as: UInt64.self))
                (out + i).initialize(to: Int64(bitPattern: (word &>> UInt64(bit & 7)) & mask))
                bit &+= width
            }
        }
        for i in whole..<count {
            let bit = i &* width
            let word = tailWord(src, from: bit &>> 3)
            (out + i).initialize(to: Int64(bitPattern: (word &>> UInt64(bit & 7)) & mask))
        }
    }

    /// The bytes of `src` from `byte` to its end (fewer than 8) as a little-endian word.
    private static func tailWord(_ src: UnsafeRawBufferPointer, from byte: Int) -> UInt64 {
        var word: UInt64 = 0
        var shift: UInt64 = 0
        var at = byte
        while at < src.count {
            word |= UInt64(src[at]) << shift
            shift += 8
            at += 1
        }
        return word
    }
}
