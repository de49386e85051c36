/// The physical type of a snapshot column. The layer above maps its attribute types onto
/// these (integers and dates to `int64` or `double`, strings and binary data to `bytes`).
public enum ColumnKind: UInt8, Sendable, Hashable, Codable, CaseIterable {
    /// One boolean per row.
    case bool = 1
    /// One 64-bit signed integer per row (delta-encoded on disk).
    case int64 = 2
    /// One 64-bit float per row.
    case double = 3
    /// A run of bytes per row (UTF-8 strings, binary data, UUIDs, encoded lists).
    case bytes = 4
}

/// A named, typed column of a table.
public struct ColumnDescriptor: Sendable, Hashable, Codable {
    /// The column's name.
    public var name: String
    /// Its physical type.
    public var kind: ColumnKind
    /// Creates a descriptor.
    public init(name: String, kind: ColumnKind) {
        self.name = name
        self.kind = kind
    }
}

/// A table in a snapshot: a name and its columns, in order.
public struct TableDescriptor: Sendable, Hashable, Codable {
    /// The table's name.
    public var name: String
    /// Its columns.
    public var columns: [ColumnDescriptor]
    /// Creates a descriptor.
    public init(name: String, columns: [ColumnDescriptor]) {
        self.name = name
        self.columns = columns
    }
}

/// Variable-length values stored as one byte buffer and `count + 1` offsets into it.
public struct ByteColumn: Sendable, Hashable {
    /// `offsets[i]..<offsets[i + 1]` is row `i`'s bytes; `offsets[0] == 0`.
    public var offsets: [UInt32]
    /// Every row's bytes, concatenated.
    public var data: [UInt8]

    /// An empty column.
    public init() {
        offsets = [0]
        data = []
    }

    /// A column from raw parts; the caller guarantees they are consistent.
    public init(offsets: [UInt32], data: [UInt8]) {
        self.offsets = offsets
        self.data = data
    }

    /// Number of rows.
    public var count: Int { offsets.count - 1 }

    /// Appends one row's bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        data.append(contentsOf: bytes)
        offsets.append(UInt32(data.count))
    }

    /// Row `index`'s bytes.
    public subscript(index: Int) -> ArraySlice<UInt8> {
        data[Int(offsets[index])..<Int(offsets[index + 1])]
    }
}

/// The values of one column for a run of rows.
public enum ColumnValues: Sendable, Hashable {
    /// Booleans.
    case bool([Bool])
    /// 64-bit integers.
    case int64([Int64])
    /// 64-bit floats.
    case double([Double])
    /// Byte runs.
    case bytes(ByteColumn)

    /// The physical type.
    public var kind: ColumnKind {
        switch self {
        case .bool: return .bool
        case .int64: return .int64
        case .double: return .double
        case .bytes: return .bytes
        }
    }

    /// Number of rows.
    public var count: Int {
        switch self {
        case .bool(let v): return v.count
        case .int64(let v): return v.count
        case .double(let v): return v.count
        case .bytes(let v): return v.count
        }
    }
}

/// One column of one chunk: the values and, when some rows are null, which ones are present.
public struct ColumnChunk: Sendable, Hashable {
    /// The values; a null row holds a placeholder (false, 0, 0.0 or no bytes).
    public var values: ColumnValues
    /// `validity[i]` is `false` where row `i` is null; `nil` when no row is null.
    public var validity: [Bool]?

    /// Creates a column chunk.
    public init(values: ColumnValues, validity: [Bool]? = nil) {
        self.values = values
        self.validity = validity
    }

    /// Number of rows.
    public var count: Int { values.count }
}

/// Summary of one column in one chunk, kept in the snapshot's footer so that readers can
/// skip chunks that cannot match a query.
public struct ColumnStatistics: Sendable, Hashable {
    /// Rows that are null.
    public var nullCount: Int
    /// Smallest and largest non-null value, for `bool`, `int64` and `double` columns
    /// (booleans as 0 and 1; NaN is ignored); `nil` otherwise or when every row is null.
    public var range: Range?

    /// An inclusive range of values.
    public enum Range: Sendable, Hashable {
        /// For `bool` and `int64` columns.
        case int(min: Int64, max: Int64)
        /// For `double` columns.
        case double(min: Double, max: Double)
    }

    /// Computes the statistics of a column chunk.
    ///
    /// - Complexity: O(rows), one pass; integer and double columns without nulls take a
    ///   branch-free loop (queries compute this for every chunk they may skip).
    public init(of chunk: ColumnChunk) {
        let valid = chunk.validity
        if valid == nil, let range = Self.rangeWithoutNulls(chunk.values) {
            nullCount = 0
            self.range = range
            return
        }
        nullCount = valid.map { $0.lazy.filter { !$0 }.count } ?? 0
        func isValid(_ i: Int) -> Bool { valid?[i] ?? true }
        switch chunk.values {
        case .bool(let v):
            var lo: Int64 = 1, hi: Int64 = 0
            for i in v.indices where isValid(i) { let x: Int64 = v[i] ? 1 : 0; lo = min(lo, x); hi = max(hi, x) }
            range = lo <= hi ? .int(min: lo, max: hi) : nil
        case .int64(let v):
            var lo = Int64.max, hi = Int64.min, any = false
            for i in v.indices where isValid(i) { lo = min(lo, v[i]); hi = max(hi, v[i]); any = true }
            range = any ? .int(min: lo, max: hi) : nil
        case .double(let v):
            var lo = Double.infinity, hi = -Double.infinity, any = false
            for i in v.indices where isValid(i) && !v[i].isNaN { lo = min(lo, v[i]); hi = max(hi, v[i]); any = true }
            range = any ? .double(min: lo, max: hi) : nil
        case .bytes:
            range = nil
        }
    }

    init(nullCount: Int, range: Range?) {
        self.nullCount = nullCount
        self.range = range
    }

    /// The range of a non-empty `int64` or `double` column without nulls (NaN ignored), in
    /// one tight loop; `nil` for any other column (and an all-NaN one), which the general
    /// path handles.
    private static func rangeWithoutNulls(_ values: ColumnValues) -> Range? {
        switch values {
        case .int64(let v) where !v.isEmpty:
            return v.withUnsafeBufferPointer { values in
                var lo = values[0], hi = values[0]
                for x in values {
                    lo = Swift.min(lo, x)
                    hi = Swift.max(hi, x)
                }
                return .int(min: lo, max: hi)
            }
        case .double(let v) where !v.isEmpty:
            return v.withUnsafeBufferPointer { values in
                var lo = Double.infinity, hi = -Double.infinity
                for x in values {
                    // Comparisons rather than `min`/`max`, so that a NaN is never taken.
                    lo = x < lo ? x : lo
                    hi = x > hi ? x : hi
                }
                return lo <= hi ? .double(min: lo, max: hi) : nil
            }
        default:
            return nil
        }
    }
}
