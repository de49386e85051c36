internal import StrataStorage

/// Space used by one entity: rows, bytes in the snapshot, bytes in memory, per column.
public struct EntityStatistics: Sendable, Hashable {
    /// The entity's name.
    public var entity: String
    /// Rows in the inspected state.
    public var rows: Int
    /// Bytes its chunks take in the snapshot file (0 without a snapshot); exact.
    public var bytesOnDisk: Int64
    /// Bytes its columns take in memory (values, offsets and null maps); exact.
    public var bytesInMemory: Int64
    /// Its stored columns: `$pk`, `$version`, the attributes, the to-one foreign keys.
    public var columns: [ColumnUsage]
}

/// Space used by one column of an entity.
public struct ColumnUsage: Sendable, Hashable {
    /// The column's name (`$pk` and `$version` are the primary key and row version).
    public var name: String
    /// Its attribute type (`bool`, `int64`, `string`…), `to-one` for a foreign key, or
    /// `int64` for the primary key and row version.
    public var type: String
    /// Rows whose value is nil.
    public var nulls: Int
    /// Bytes it takes in memory; exact.
    public var bytesInMemory: Int64
    /// Its share of the entity's snapshot bytes, in proportion to its share of the memory
    /// bytes. An estimate: a snapshot compresses a chunk's columns together.
    public var estimatedBytesOnDisk: Int64
}

extension StoreInspector {
    /// Space used per entity and column, in schema order.
    ///
    /// - Throws: `.corrupted` when a chunk of the store's snapshot fails its first read (an
    ///   encrypted chunk that does not authenticate).
    /// - Complexity: O(chunks × columns).
    public func statistics() throws(StrataError) -> [EntityStatistics] {
        try store.checkingDamage { measure() }
    }

    private func measure() -> [EntityStatistics] {
        let version = store.currentVersion
        var snapshotBytes = [Int64](repeating: 0, count: store.layouts.count)
        if let snapshot {
            for chunk in snapshot.chunks {
                let name = snapshot.tables[chunk.table].name
                if let index = store.layoutIndex[name] { snapshotBytes[index] += Int64(chunk.length) }
            }
        }
        return store.layouts.map { layout in
            let table = version.tables[layout.index]
            var memory = [Int64](repeating: 0, count: layout.table.columns.count)
            var nulls = [Int](repeating: 0, count: layout.table.columns.count)
            for chunk in table.chunks {
                for (index, column) in chunk.columns.enumerated() where index < memory.count {
                    memory[index] += column.bytesInMemory
                    nulls[index] += column.validity?.lazy.filter { !$0 }.count ?? 0
                }
            }
            let total = memory.reduce(0, +)
            let columns = layout.table.columns.enumerated().map { index, descriptor in
                let property = layout.properties.first { $0.column == index }
                let type = property.map { $0.type?.rawValue ?? "to-one" } ?? "int64"
                let share = total > 0 ? Int64((Double(memory[index]) / Double(total) * Double(snapshotBytes[layout.index])).rounded()) : 0
                return ColumnUsage(name: descriptor.name, type: type, nulls: nulls[index],
                                   bytesInMemory: memory[index], estimatedBytesOnDisk: share)
            }
            return EntityStatistics(entity: layout.entity.name, rows: table.rowCount,
                                    bytesOnDisk: snapshotBytes[layout.index], bytesInMemory: total, columns: columns)
        }
    }
}

extension ColumnChunk {
    /// Bytes the values, offsets and null map take (element counts, not capacities).
    var bytesInMemory: Int64 {
        let nullMap = Int64(validity?.count ?? 0)
        switch values {
        case .bool(let v): return Int64(v.count) + nullMap
        case .int64(let v): return Int64(v.count * 8) + nullMap
        case .double(let v): return Int64(v.count * 8) + nullMap
        case .bytes(let b): return Int64(b.data.count + b.offsets.count * 4) + nullMap
        }
    }
}
