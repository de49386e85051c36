import Foundation
internal import StrataStorage

/// Reading and writing ``AttributeValue``s in typed columns.
///
/// Dates are stored as seconds since 2001-01-01 (`timeIntervalSinceReferenceDate`, exact);
/// strings as UTF-8; UUIDs as their 16 bytes; a null row has `validity[row] == false`.
extension ColumnChunk {
    /// The value at `row`, typed by `type` (`nil` type: a foreign key, `.int` or `.null`).
    @inline(__always)
    func value(at row: Int, type: AttributeType?) -> AttributeValue {
        if validity?[row] == false { return .null }
        switch values {
        case .bool(let v): return .bool(v[row])
        case .int64(let v): return .int(v[row])
        case .double(let v):
            return type == .date ? .date(Date(timeIntervalSinceReferenceDate: v[row])) : .double(v[row])
        case .bytes(let b):
            if type == .string {
                // Straight from the column's buffer: no slice of it is made and counted.
                let start = Int(b.offsets[row]), end = Int(b.offsets[row + 1])
                return .string(b.data.withUnsafeBufferPointer {
                    String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
                })
            }
            let bytes = b[row]
            switch type {
            case .uuid?:
                guard bytes.count == 16 else { return .null }
                let t = Array(bytes)
                return .uuid(UUID(uuid: (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15])))
            default: return .binary(Data(bytes))
            }
        }
    }

    /// ``value(at:type:)`` of the column at `column`, which the caller keeps alive and
    /// unchanged. A string is decoded straight from the column's byte buffers, and the
    /// column's values are copied out once (``value(at:type:)`` copies the whole column:
    /// its validity map too, one retain and release more per read).
    @inline(__always)
    static func value(in column: UnsafePointer<ColumnChunk>, at row: Int, type: AttributeType?) -> AttributeValue {
        guard type == .string, case .bytes = column.pointee.values else { return column.pointee.value(at: row, type: type) }
        if let validity = column.pointee.validity, !validity[row] { return .null }
        return .string(string(in: column.pointee.values, at: row))
    }

    /// Row `row` of a byte column, decoded as UTF-8 from the column's buffers in place (no
    /// slice of them is made); `""` for a column of another kind.
    @inline(__always)
    private static func string(in values: borrowing ColumnValues, at row: Int) -> String {
        switch values {
        case .bytes(let bytes):
            bytes.offsets.withUnsafeBufferPointer { offsets in
                bytes.data.withUnsafeBufferPointer {
                    String(decoding: UnsafeBufferPointer(rebasing: $0[Int(offsets[row])..<Int(offsets[row + 1])]), as: UTF8.self)
                }
            }
        default: ""
        }
    }

    /// An empty column of `kind`, optionally with a validity map.
    static func empty(_ kind: ColumnKind) -> ColumnChunk {
        switch kind {
        case .bool: return ColumnChunk(values: .bool([]))
        case .int64: return ColumnChunk(values: .int64([]))
        case .double: return ColumnChunk(values: .double([]))
        case .bytes: return ColumnChunk(values: .bytes(ByteColumn()))
        }
    }

    /// Inserts `value` (already type-checked) at `row`.
    mutating func insert(_ value: AttributeValue, at row: Int) {
        let present = !value.isNull
        if validity != nil || !present {
            if validity == nil { validity = [Bool](repeating: true, count: count) }
            validity!.insert(present, at: row)
        }
        switch values {
        case .bool(var v): values = .bool([]); v.insert(value.boolValue, at: row); values = .bool(v)
        case .int64(var v): values = .int64([]); v.insert(value.int64Value, at: row); values = .int64(v)
        case .double(var v): values = .double([]); v.insert(value.doubleValue, at: row); values = .double(v)
        case .bytes(var b):
            values = .bytes(ByteColumn())
            b.insert(value.storedBytes, at: row)
            values = .bytes(b)
        }
    }

    /// Replaces the value at `row`.
    mutating func set(_ value: AttributeValue, at row: Int) {
        let present = !value.isNull
        if validity != nil || !present {
            if validity == nil { validity = [Bool](repeating: true, count: count) }
            validity![row] = present
        }
        switch values {
        case .bool(var v): values = .bool([]); v[row] = value.boolValue; values = .bool(v)
        case .int64(var v): values = .int64([]); v[row] = value.int64Value; values = .int64(v)
        case .double(var v): values = .double([]); v[row] = value.doubleValue; values = .double(v)
        case .bytes(var b):
            values = .bytes(ByteColumn())
            b.replace(at: row, with: value.storedBytes)
            values = .bytes(b)
        }
    }

    /// Removes the rows at the sorted, distinct `rows` indexes, copying the kept runs
    /// between them in bulk.
    mutating func remove(rows: [Int]) {
        guard !rows.isEmpty else { return }
        if let v = validity { validity = Self.keeping(v, without: rows) }
        switch values {
        case .bool(let v): values = .bool([]); values = .bool(Self.keeping(v, without: rows))
        case .int64(let v): values = .int64([]); values = .int64(Self.keeping(v, without: rows))
        case .double(let v): values = .double([]); values = .double(Self.keeping(v, without: rows))
        case .bytes(let b):
            values = .bytes(ByteColumn())
            values = .bytes(b.removing(rows: rows))
        }
    }

    /// `values` without the elements at the sorted, distinct `rows`.
    private static func keeping<T: BitwiseCopyable>(_ values: [T], without rows: [Int]) -> [T] {
        [T](unsafeUninitializedCapacity: values.count - rows.count) { out, initialized in
            values.withUnsafeBufferPointer { source in
                guard let to = out.baseAddress, let from = source.baseAddress else { return }
                var start = 0, o = 0
                func copy(_ end: Int) {
                    let length = end - start
                    if length > 8 {
                        (to + o).initialize(from: from + start, count: length)
                    } else {
                        for i in 0..<length { (to + o + i).initialize(to: from[start + i]) }
                    }
                    o += length
                }
                for row in rows {
                    copy(row)
                    start = row + 1
                }
                copy(source.count)
                initialized = o
            }
        }
    }

    /// Splits off the rows from `start` on into a new column.
    mutating func split(at start: Int) -> ColumnChunk {
        var tail = ColumnChunk.empty(values.kind)
        if let v = validity {
            tail.validity = Array(v[start...])
            validity = Array(v[..<start])
        }
        switch values {
        case .bool(let v): tail.values = .bool(Array(v[start...])); values = .bool(Array(v[..<start]))
        case .int64(let v): tail.values = .int64(Array(v[start...])); values = .int64(Array(v[..<start]))
        case .double(let v): tail.values = .double(Array(v[start...])); values = .double(Array(v[..<start]))
        case .bytes(let b):
            var head = ByteColumn(), rest = ByteColumn()
            for row in 0..<b.count { if row < start { head.append(b[row]) } else { rest.append(b[row]) } }
            values = .bytes(head)
            tail.values = .bytes(rest)
        }
        return tail
    }
}

extension ByteColumn {
    /// The column without the rows at the sorted, distinct `rows`: kept runs of bytes are
    /// copied whole, and their offsets shifted by the bytes removed before them.
    func removing(rows: [Int]) -> ByteColumn {
        offsets.withUnsafeBufferPointer { offsets in
            data.withUnsafeBufferPointer { data in
                var removedBytes = 0
                for row in rows { removedBytes += Int(offsets[row + 1] - offsets[row]) }
                var newData: [UInt8] = []
                let newOffsets = [UInt32](unsafeUninitializedCapacity: offsets.count - rows.count) { newOffsets, n in
                    newOffsets[0] = 0
                    n = 1
                    newData = [UInt8](unsafeUninitializedCapacity: data.count - removedBytes) { newData, d in
                        var start = 0
                        func keep(_ end: Int) {
                            guard end > start else { return }
                            let from = Int(offsets[start]), to = Int(offsets[end])
                            let shift = UInt32(from - d)
                            if to > from, let source = data.baseAddress, let target = newData.baseAddress {
                                (target + d).initialize(from: source + from, count: to - from)
                            }
                            d += to - from
                            for i in start..<end {
                                newOffsets[n] = offsets[i + 1] - shift
                                n += 1
                            }
                        }
                        for row in rows {
                            keep(row)
                            start = row + 1
                        }
                        keep(count)
                    }
                }
                return ByteColumn(offsets: newOffsets, data: newData)
            }
        }
    }

    /// Inserts a row's bytes at `row`, shifting later offsets.
    mutating func insert(_ bytes: [UInt8], at row: Int) {
        let at = Int(offsets[row])
        data.insert(contentsOf: bytes, at: at)
        offsets.insert(UInt32(at), at: row)
        let delta = UInt32(bytes.count)
        for i in (row + 1)..<offsets.count { offsets[i] += delta }
    }

    /// Replaces row `row`'s bytes.
    mutating func replace(at row: Int, with bytes: [UInt8]) {
        let start = Int(offsets[row]), end = Int(offsets[row + 1])
        data.replaceSubrange(start..<end, with: bytes)
        let delta = Int64(bytes.count) - Int64(end - start)
        if delta != 0 {
            for i in (row + 1)..<offsets.count { offsets[i] = UInt32(Int64(offsets[i]) + delta) }
        }
    }
}

extension AttributeValue {
    var boolValue: Bool { if case .bool(let b) = self { return b } else { return false } }
    var int64Value: Int64 { if case .int(let i) = self { return i } else { return 0 } }
    var doubleValue: Double {
        switch self {
        case .double(let d): return d
        case .date(let d): return d.timeIntervalSinceReferenceDate
        case .int(let i): return Double(i)
        default: return 0
        }
    }
    /// The length of ``storedBytes`` (O(1) for native strings).
    var storedByteCount: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .binary(let d): return d.count
        case .uuid: return 16
        default: return 0
        }
    }

    /// Copies ``storedBytes`` to the start of `target` without making an array of them
    /// first, and returns how many there were.
    ///
    /// - Precondition: `target` has room for ``storedByteCount`` bytes.
    func copyStoredBytes(into target: UnsafeMutableBufferPointer<UInt8>) -> Int {
        func copy(_ bytes: UnsafeRawBufferPointer) -> Int {
            precondition(bytes.count <= target.count, "no room for a value's stored bytes")
            UnsafeMutableRawBufferPointer(target).copyMemory(from: bytes)
            return bytes.count
        }
        switch self {
        case .string(let s):
            // Native strings are contiguous UTF-8; only a bridged one takes the element-wise copy.
            return s.utf8.withContiguousStorageIfAvailable { copy(UnsafeRawBufferPointer($0)) }
                ?? Array(s.utf8).withUnsafeBytes(copy)
        case .binary(let d): return d.withUnsafeBytes(copy)
        case .uuid(let u): return withUnsafeBytes(of: u.uuid, copy)
        default: return 0
        }
    }

    var storedBytes: [UInt8] {
        switch self {
        case .string(let s): return Array(s.utf8)
        case .binary(let d): return Array(d)
        case .uuid(let u): return withUnsafeBytes(of: u.uuid) { Array($0) }
        default: return []
        }
    }
}
