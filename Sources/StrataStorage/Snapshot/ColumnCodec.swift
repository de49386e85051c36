/// Encodes column chunks to bytes and back. Layout in `docs/FORMAT.md` (section 5.5):
/// per column, a 8-byte header (kind, encoding, has-validity, reserved, row count), the
/// validity bitmap when present, then the values. Integers are bit-packed
/// (``PackedIntegers``) or delta-encoded, whichever is smaller.
enum ColumnCodec {
    static let plainEncoding: UInt8 = 0
    static let deltaEncoding: UInt8 = 1

    /// Appends `columns`, one after the other. With `packing` false, integers are
    /// delta-encoded whatever their range (the 1.0 encoding, at most 8 decoded bytes per
    /// stored byte: what the writer falls back on to keep a snapshot inside its decode budget).
    static func encode(_ columns: [ColumnChunk], packing: Bool = true, into w: inout ByteWriter) {
        for column in columns { encode(column, packing: packing, into: &w) }
    }

    /// Appends one column's encoding.
    static func encode(_ column: ColumnChunk, packing: Bool = true, into w: inout ByteWriter) {
        let n = column.count
        w.write(column.values.kind.rawValue)
        var plan: PackedIntegers.Plan?
        if packing, case .int64(let v) = column.values { plan = PackedIntegers.plan(v) }
        w.write(plan?.encoding ?? (column.values.kind == .int64 ? deltaEncoding : plainEncoding))
        w.write(UInt8(column.validity == nil ? 0 : 1))
        w.write(UInt8(0))
        w.write(UInt32(n))
        if let validity = column.validity { writeBitmap(validity, into: &w) }
        switch column.values {
        case .bool(let v):
            writeBitmap(v, into: &w)
        case .int64(let v):
            if let plan, plan.encoding != deltaEncoding {
                PackedIntegers.write(v, plan: plan, into: &w)
            } else {
                var previous: Int64 = 0
                for x in v {
                    w.write(x &- previous)
                    previous = x
                }
            }
        case .double(let v):
            v.withUnsafeBytes { raw in
                #if _endian(little)
                w.write(raw: raw)
                #else
                for x in v { w.write(x) }
                #endif
            }
        case .bytes(let b):
            b.offsets.withUnsafeBytes { raw in
                #if _endian(little)
                w.write(raw: raw)
                #else
                for x in b.offsets { w.write(x) }
                #endif
            }
            w.write(b.data)
        }
    }

    /// Decodes exactly `table.columns.count` columns of `rows` rows each, checking every kind
    /// and length against the descriptor and the bytes left.
    static func decode(_ bytes: [UInt8], table: TableDescriptor, rows: Int) throws -> [ColumnChunk] {
        try bytes.withUnsafeBytes { try decode($0, table: table, rows: rows) }
    }

    /// Decodes exactly `table.columns.count` columns of `rows` rows each, checking every kind
    /// and length against the descriptor and the bytes left. Values are copied in bulk
    /// (little-endian hosts) straight from `bytes`.
    ///
    /// - Complexity: O(`bytes.count`).
    static func decode(_ bytes: UnsafeRawBufferPointer, table: TableDescriptor, rows: Int) throws -> [ColumnChunk] {
        try decode(bytes, table: table, rows: rows, only: nil).map { $0! }
    }

    /// Decodes the columns whose `wanted` entry is `true` (every column when `wanted` is
    /// `nil`) and steps over the others: their headers, kinds, row counts and lengths are
    /// checked as a full decode checks them, their values are neither copied nor checked
    /// (a bytes column's offsets are read only for the length of its data). The result has
    /// one entry per column of `table`, `nil` for each column not wanted.
    ///
    /// - Complexity: O(bytes of the wanted columns + number of columns).
    static func decode(_ bytes: UnsafeRawBufferPointer, table: TableDescriptor, rows: Int, only wanted: [Bool]?) throws -> [ColumnChunk?] {
        var r = RawReader(bytes)
        var columns: [ColumnChunk?] = []
        columns.reserveCapacity(table.columns.count)
        for (index, descriptor) in table.columns.enumerated() {
            columns.append(try decodeColumn(&r, descriptor, rows: rows, wanted: wanted?[index] ?? true))
        }
        guard r.remaining == 0 else { throw DecodeError("\(r.remaining) unexpected bytes after the last column") }
        return columns
    }

    /// Decodes the next column from `r` as ``decode(_:table:rows:only:)`` does: all of it
    /// when `wanted`, else only its header and lengths (`nil`).
    static func decodeColumn(_ r: inout RawReader, _ descriptor: ColumnDescriptor, rows: Int, wanted: Bool) throws -> ColumnChunk? {
        let header = try r.take(8)
        guard let kind = ColumnKind(rawValue: header[0]), kind == descriptor.kind else {
            throw DecodeError("column \(descriptor.name) has the wrong type")
        }
        let encoding = header[1]
        let hasValidity = header[2]
        let n = Int(UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        guard n == rows, hasValidity <= 1 else { throw DecodeError("column \(descriptor.name) has \(n) rows, expected \(rows)") }
        guard kind == .int64 || encoding == plainEncoding else {
            throw DecodeError("column \(descriptor.name) uses encoding \(encoding), unknown to this version")
        }
        if !wanted {
            if hasValidity == 1 { _ = try r.take((n + 7) / 8) }
            switch kind {
            case .bool: _ = try r.take((n + 7) / 8)
            case .int64:
                switch encoding {
                case deltaEncoding, plainEncoding: _ = try r.take(n * 8)
                case PackedIntegers.packed, PackedIntegers.packedDelta:
                    try PackedIntegers.skip(&r, encoding: encoding, count: n, column: descriptor.name)
                default: throw DecodeError("column \(descriptor.name) uses integer encoding \(encoding), unknown to this version")
                }
            case .double: _ = try r.take(n * 8)
            case .bytes:
                let offsets = try r.take((n + 1) * 4)
                _ = try r.take(Int(UInt32(littleEndian: offsets.loadUnaligned(fromByteOffset: n * 4, as: UInt32.self))))
            }
            return nil
        }
        let validity = hasValidity == 1 ? readBitmap(try r.take((n + 7) / 8), count: n) : nil
        let values: ColumnValues
        switch kind {
        case .bool:
            values = .bool(readBitmap(try r.take((n + 7) / 8), count: n))
        case .int64 where encoding == PackedIntegers.packed || encoding == PackedIntegers.packedDelta:
            values = .int64(try PackedIntegers.decode(&r, encoding: encoding, count: n, column: descriptor.name))
        case .int64:
            guard encoding == deltaEncoding || encoding == plainEncoding else {
                throw DecodeError("column \(descriptor.name) uses integer encoding \(encoding), unknown to this version")
            }
            let src = try r.take(n * 8)
            let delta = encoding == deltaEncoding
            values = .int64([Int64](unsafeUninitializedCapacity: n) { out, count in
                var previous: Int64 = 0
                for i in 0..<n {
                    let x = Int64(littleEndian: src.loadUnaligned(fromByteOffset: i &* 8, as: Int64.self))
                    previous = delta ? previous &+ x : x
                    out.initializeElement(at: i, to: previous)
                }
                count = n
            })
        case .double:
            let src = try r.take(n * 8)
            values = .double([Double](unsafeUninitializedCapacity: n) { out, count in
                #if _endian(little)
                if n > 0 { UnsafeMutableRawPointer(out.baseAddress!).copyMemory(from: src.baseAddress!, byteCount: n * 8) }
                #else
                for i in 0..<n {
                    out.initializeElement(at: i, to: Double(bitPattern: UInt64(littleEndian: src.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))))
                }
                #endif
                count = n
            })
        case .bytes:
            let src = try r.take((n + 1) * 4)
            var ordered = true
            let offsets = [UInt32](unsafeUninitializedCapacity: n + 1) { out, count in
                var previous: UInt32 = 0
                for i in 0...n {
                    let x = UInt32(littleEndian: src.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
                    ordered = ordered && x >= previous
                    previous = x
                    out.initializeElement(at: i, to: x)
                }
                count = n + 1
            }
            guard offsets[0] == 0 else { throw DecodeError("column \(descriptor.name) offsets do not start at 0") }
            guard ordered else { throw DecodeError("column \(descriptor.name) offsets are not increasing") }
            let data = try r.take(Int(offsets[n]))
            values = .bytes(ByteColumn(offsets: offsets, data: [UInt8](data)))
        }
        return ColumnChunk(values: values, validity: validity)
    }

    /// Takes bounded slices off the front of a raw buffer.
    struct RawReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
        var remaining: Int { bytes.count - offset }

        /// The next `count` bytes; `count` is checked against what is left first.
        mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count >= 0, remaining >= count else { throw DecodeError("the chunk is cut short") }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }
    }

    struct DecodeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func writeBitmap(_ bits: [Bool], into w: inout ByteWriter) {
        var byte: UInt8 = 0
        for (i, bit) in bits.enumerated() {
            if bit { byte |= 1 << UInt8(i & 7) }
            if i & 7 == 7 { w.write(byte); byte = 0 }
        }
        if bits.count & 7 != 0 { w.write(byte) }
    }

    /// The first `count` bits of `bytes` (which holds at least `(count + 7) / 8` bytes).
    private static func readBitmap(_ bytes: UnsafeRawBufferPointer, count: Int) -> [Bool] {
        [Bool](unsafeUninitializedCapacity: count) { out, initialized in
            for i in 0..<count {
                out.initializeElement(at: i, to: bytes[i &>> 3] & (1 << UInt8(i & 7)) != 0)
            }
            initialized = count
        }
    }
}
