/// Encodes column chunks to bytes and back. Layout in `docs/FORMAT.md`:
/// per column, a 8-byte header (kind, encoding, has-validity, reserved, row count), the
/// validity bitmap when present, then the values. Integers are delta-encoded.
enum ColumnCodec {
    static let plainEncoding: UInt8 = 0
    static let deltaEncoding: UInt8 = 1

    static func encode(_ columns: [ColumnChunk], into w: inout ByteWriter) {
        for column in columns {
            let n = column.count
            w.write(column.values.kind.rawValue)
            w.write(column.values.kind == .int64 ? deltaEncoding : plainEncoding)
            w.write(UInt8(column.validity == nil ? 0 : 1))
            w.write(UInt8(0))
            w.write(UInt32(n))
            if let validity = column.validity { writeBitmap(validity, into: &w) }
            switch column.values {
            case .bool(let v):
                writeBitmap(v, into: &w)
            case .int64(let v):
                var previous: Int64 = 0
                for x in v {
                    w.write(x &- previous)
                    previous = x
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
    }

    /// Decodes exactly `table.columns.count` columns of `rows` rows each, checking every kind
    /// and length against the descriptor and the bytes left.
    static func decode(_ bytes: [UInt8], table: TableDescriptor, rows: Int) throws -> [ColumnChunk] {
        var r = ByteReader(bytes)
        var columns: [ColumnChunk] = []
        columns.reserveCapacity(table.columns.count)
        for descriptor in table.columns {
            guard let kind = ColumnKind(rawValue: try r.readUInt8()), kind == descriptor.kind else {
                throw DecodeError("column \(descriptor.name) has the wrong type")
            }
            let encoding = try r.readUInt8()
            let hasValidity = try r.readUInt8()
            _ = try r.readUInt8()
            let n = Int(try r.readUInt32())
            guard n == rows, hasValidity <= 1 else { throw DecodeError("column \(descriptor.name) has \(n) rows, expected \(rows)") }
            guard kind == .int64 || encoding == plainEncoding else {
                throw DecodeError("column \(descriptor.name) uses encoding \(encoding), unknown to this version")
            }
            let validity = hasValidity == 1 ? try readBitmap(&r, count: n) : nil
            let values: ColumnValues
            switch kind {
            case .bool:
                values = .bool(try readBitmap(&r, count: n))
            case .int64:
                guard encoding == deltaEncoding || encoding == plainEncoding else { throw DecodeError("unknown integer encoding") }
                let raw = try r.readBytes(n * 8)
                var out = [Int64](repeating: 0, count: n)
                raw.withUnsafeBytes { src in
                    var previous: Int64 = 0
                    for i in 0..<n {
                        let x = Int64(littleEndian: src.loadUnaligned(fromByteOffset: i * 8, as: Int64.self))
                        previous = encoding == deltaEncoding ? previous &+ x : x
                        out[i] = previous
                    }
                }
                values = .int64(out)
            case .double:
                let raw = try r.readBytes(n * 8)
                var out = [Double](repeating: 0, count: n)
                raw.withUnsafeBytes { src in
                    for i in 0..<n {
                        out[i] = Double(bitPattern: UInt64(littleEndian: src.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)))
                    }
                }
                values = .double(out)
            case .bytes:
                let raw = try r.readBytes((n + 1) * 4)
                var offsets = [UInt32](repeating: 0, count: n + 1)
                raw.withUnsafeBytes { src in
                    for i in 0...n { offsets[i] = UInt32(littleEndian: src.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
                }
                guard offsets[0] == 0 else { throw DecodeError("column \(descriptor.name) offsets do not start at 0") }
                for i in 0..<n where offsets[i] > offsets[i + 1] {
                    throw DecodeError("column \(descriptor.name) offsets are not increasing")
                }
                let data = try r.readBytes(Int(offsets[n]))
                values = .bytes(ByteColumn(offsets: offsets, data: Array(data)))
            }
            columns.append(ColumnChunk(values: values, validity: validity))
        }
        guard r.isAtEnd else { throw DecodeError("\(r.remaining) unexpected bytes after the last column") }
        return columns
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

    private static func readBitmap(_ r: inout ByteReader, count: Int) throws -> [Bool] {
        let bytes = try r.readBytes((count + 7) / 8)
        let base = bytes.startIndex
        return (0..<count).map { bytes[base + $0 >> 3] & (1 << UInt8($0 & 7)) != 0 }
    }
}
