internal import StrataStorage

extension SchemaMapping {
    /// The tables of `version` (laid out by `oldLayouts`) as the tables of the new schema
    /// (`newLayouts`), and the next primary keys.
    ///
    /// Primary keys and row versions are kept, so object IDs and relationships (foreign keys
    /// are primary keys) survive. A new attribute's column is one shared "all default" column
    /// per chunk size: every chunk of 1,024 rows points at the same buffer, so adding an
    /// attribute with a default to a million rows allocates one chunk's worth, and a write
    /// later copies only the chunk it touches. Only a conversion (integer → double) or filling
    /// the nils of an attribute that became required rewrites a column.
    ///
    /// - Complexity: O(chunks), plus O(rows) for each converted or filled column.
    func apply(to tables: [EntityTable], oldLayouts: [EntityLayout], newLayouts: [EntityLayout],
               nextKeys: [Int64]) -> (tables: [EntityTable], nextKeys: [Int64]) {
        var newTables: [EntityTable] = []
        var newKeys: [Int64] = []
        for (entityMap, layout) in zip(entities, newLayouts) {
            guard let source = entityMap.source else {
                newTables.append(EntityTable(layout: layout))
                newKeys.append(1)
                continue
            }
            let oldLayout = oldLayouts[source]
            newKeys.append(nextKeys.indices.contains(source) ? nextKeys[source] : 1)
            var defaultColumns = [[Int: ColumnChunk]](repeating: [:], count: layout.properties.count)
            var chunks: [TableChunk] = []
            chunks.reserveCapacity(tables[source].chunks.count)
            for chunk in tables[source].chunks {
                var columns = [chunk.columns[EntityLayout.primaryKeyColumn], chunk.columns[EntityLayout.versionColumn]]
                for (p, property) in layout.properties.enumerated() {
                    let fill = layout.entity.attributes.indices.contains(p) ? layout.entity.attributes[p].defaultValue : .null
                    if let from = entityMap.properties[p] {
                        let old = oldLayout.properties[from]
                        columns.append(Self.convert(chunk.columns[old.column], from: old.type, to: property.type,
                                                    fillingNilsWith: property.isOptional ? .null : fill))
                    } else if let shared = defaultColumns[p][chunk.count] {
                        columns.append(shared)
                    } else {
                        let made = Self.column(repeating: fill, kind: layout.table.columns[property.column].kind, count: chunk.count)
                        defaultColumns[p][chunk.count] = made
                        columns.append(made)
                    }
                }
                chunks.append(TableChunk(columns: columns))
            }
            newTables.append(EntityTable(layout: layout, chunks: chunks))
        }
        return (newTables, newKeys)
    }

    /// `column` with its values converted from `from` to `to` (integer → double) and its
    /// nils replaced by `fill` unless `fill` is null.
    static func convert(_ column: ColumnChunk, from: AttributeType?, to: AttributeType?,
                        fillingNilsWith fill: AttributeValue) -> ColumnChunk {
        var result = column
        if let from, let to, from != to, to == .double, case .int64(let values) = column.values {
            result.values = .double(values.map(Double.init))
        }
        guard !fill.isNull, let validity = result.validity else { return result }
        guard validity.contains(false) else {
            result.validity = nil
            return result
        }
        let converted = to == .double ? AttributeValue.double(fill.doubleValue) : fill
        var rebuilt = ColumnChunk.empty(result.values.kind)
        for row in 0..<result.count {
            rebuilt.insert(validity[row] ? result.value(at: row, type: to) : converted, at: row)
        }
        return rebuilt
    }

    /// A column of `count` rows that all hold `value` (null rows when it is null).
    static func column(repeating value: AttributeValue, kind: ColumnKind, count: Int) -> ColumnChunk {
        let validity: [Bool]? = value.isNull ? [Bool](repeating: false, count: count) : nil
        switch kind {
        case .bool: return ColumnChunk(values: .bool(.init(repeating: value.boolValue, count: count)), validity: validity)
        case .int64: return ColumnChunk(values: .int64(.init(repeating: value.int64Value, count: count)), validity: validity)
        case .double: return ColumnChunk(values: .double(.init(repeating: value.doubleValue, count: count)), validity: validity)
        case .bytes:
            let bytes = value.storedBytes
            var data: [UInt8] = []
            data.reserveCapacity(bytes.count * count)
            for _ in 0..<count { data.append(contentsOf: bytes) }
            let offsets = (0...count).map { UInt32($0 * bytes.count) }
            return ColumnChunk(values: .bytes(ByteColumn(offsets: offsets, data: data)), validity: validity)
        }
    }
}
