internal import StrataStorage

/// An immutable run of rows of one entity, sorted by primary key: one ``ColumnChunk`` per
/// column (primary key, row version, attributes, to-one foreign keys).
///
/// Versions share chunks they did not change; a commit copies only the chunks (and within
/// them only the columns) it touches.
final class TableChunk: Sendable {
    let columns: [ColumnChunk]
    /// Per-column statistics computed on first use by queries (see `ChunkSkipper`).
    let statisticsCache = Locked<[Int: ColumnStatistics]>([:])

    init(columns: [ColumnChunk]) { self.columns = columns }

    var count: Int { columns[EntityLayout.primaryKeyColumn].count }

    /// The primary keys, ascending.
    var primaryKeys: [Int64] {
        guard case .int64(let keys) = columns[EntityLayout.primaryKeyColumn].values else { return [] }
        return keys
    }

    /// The version (LSN of the last change) of each row.
    var versions: [Int64] {
        guard case .int64(let v) = columns[EntityLayout.versionColumn].values else { return [] }
        return v
    }

    /// The version of the row at `row`.
    func version(at row: Int) -> UInt64 {
        guard case .int64(let versions) = columns[EntityLayout.versionColumn].values else { return 0 }
        return UInt64(bitPattern: versions[row])
    }

    var firstKey: Int64 { primaryKeys.first ?? .max }
    var lastKey: Int64 { primaryKeys.last ?? .min }

    /// The row index of `key`, or `nil`.
    func row(of key: Int64) -> Int? {
        guard case .int64(let keys) = columns[EntityLayout.primaryKeyColumn].values else { return nil }
        return keys.withUnsafeBufferPointer { keys in
            var low = 0, high = keys.count
            while low < high {
                let mid = (low + high) / 2
                if keys[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low < keys.count && keys[low] == key ? low : nil
        }
    }

    /// The value at `row` of the column `access` names, read in place.
    func value(at row: Int, _ access: EntityLayout.ColumnAccess) -> AttributeValue {
        columns.withUnsafeBufferPointer { $0[access.column].value(at: row, type: access.type) }
    }
}
