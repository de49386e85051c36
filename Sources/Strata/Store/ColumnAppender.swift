internal import StrataStorage

/// Bulk appends to typed columns (the insert and replay fast path).
///
/// Each column is rebuilt in one allocation of its final size: its rows so far, then the new
/// values written straight into place (no capacity check or `[UInt8]` per value). The chunk
/// the rows go to is shared with older versions, so its arrays are copied either way.
enum ColumnAppender {
    static func append(keys: [Int64], version: Int64, to columns: inout [ColumnChunk]) {
        if case .int64(let k) = columns[EntityLayout.primaryKeyColumn].values {
            columns[EntityLayout.primaryKeyColumn].values = .int64([])
            columns[EntityLayout.primaryKeyColumn].values = .int64(extending(k, by: keys.count) { out in
                _ = out.initialize(from: keys)
            })
        }
        if case .int64(let v) = columns[EntityLayout.versionColumn].values {
            columns[EntityLayout.versionColumn].values = .int64([])
            columns[EntityLayout.versionColumn].values = .int64(extending(v, by: keys.count) { out in
                out.initialize(repeating: version)
            })
        }
    }

    /// Appends the values of property `p` (already type-checked) of `rows[i]` for each `i`
    /// of `order`. The column gains a validity map only when it has one or a value is null.
    static func append(property p: Int, of rows: Changeset.Inserts, _ order: some Collection<Int>,
                       to column: inout ColumnChunk) {
        // A run (a batch insert) is read in place: no switch or bounds check per value.
        let appendedRun: Void? = rows.withRunValues { _, width, values in
            append(order, to: &column, read: { values[$0 * width + p] })
        }
        if appendedRun == nil { append(order, to: &column, read: { rows.value(p, ofRow: $0) }) }
    }

    /// Appends `read(i)` for each `i` of `order` to `column`.
    private static func append(_ order: some Collection<Int>, to column: inout ColumnChunk,
                               read: (Int) -> AttributeValue) {
        let before = column.count
        var sawNull = false
        func values<T: BitwiseCopyable>(_ old: [T], _ convert: (AttributeValue) -> T) -> [T] {
            extending(old, by: order.count) { out in
                for (n, i) in order.enumerated() {
                    let value = read(i)
                    sawNull = sawNull || value.isNull
                    out[n] = convert(value)
                }
            }
        }
        switch column.values {
        case .bool(let v): column.values = .bool([]); column.values = .bool(values(v, \.boolValue))
        case .int64(let v): column.values = .int64([]); column.values = .int64(values(v, \.int64Value))
        case .double(let v): column.values = .double([]); column.values = .double(values(v, \.doubleValue))
        case .bytes(let b):
            column.values = .bytes(ByteColumn())
            var size = 0
            for i in order { size += read(i).storedByteCount }
            var data: [UInt8] = []
            let offsets = extending(b.offsets, by: order.count) { offsets in
                data = extending(b.data, by: size) { bytes in
                    var end = 0
                    for (n, i) in order.enumerated() {
                        let value = read(i)
                        sawNull = sawNull || value.isNull
                        end += value.copyStoredBytes(into: UnsafeMutableBufferPointer(rebasing: bytes[end...]))
                        offsets[n] = UInt32(b.data.count + end)
                    }
                    precondition(end == size, "stored bytes changed size while copied")
                }
            }
            column.values = .bytes(ByteColumn(offsets: offsets, data: data))
        }
        if column.validity != nil || sawNull {
            let validity = column.validity ?? [Bool](repeating: true, count: before)
            column.validity = nil
            column.validity = extending(validity, by: order.count) { out in
                for (n, i) in order.enumerated() { out[n] = !read(i).isNull }
            }
        }
    }

    /// `values` then `count` more elements, which `fill` must all initialize, in one array.
    private static func extending<T: BitwiseCopyable>(_ values: [T], by count: Int,
                                                      _ fill: (UnsafeMutableBufferPointer<T>) -> Void) -> [T] {
        [T](unsafeUninitializedCapacity: values.count + count) { buffer, initialized in
            _ = buffer.initialize(from: values)
            fill(UnsafeMutableBufferPointer(rebasing: buffer[values.count...]))
            initialized = values.count + count
        }
    }
}
