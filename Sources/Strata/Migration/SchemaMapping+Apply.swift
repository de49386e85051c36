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
    /// A chunk not decoded yet (one of the snapshot the store opened with, not read since) is
    /// not read: it gets a ``ChunkColumnMapping`` that its first read applies, and statistics
    /// mapped from its footer's, so that a migrating open costs what a plain open costs.
    ///
    /// - Complexity: O(chunks), plus O(rows) for each converted or filled column of the
    ///   chunks already decoded.
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
            newKeys.append(nextKeys.indices.contains(source) ? nextKeys[source] : 1)
            let mapping = chunkMapping(entityMap, from: oldLayouts[source], to: layout)
            var composed: [ObjectIdentifier: ChunkColumnMapping] = [:]
            var chunks: [TableChunk] = []
            chunks.reserveCapacity(tables[source].chunks.count)
            for chunk in tables[source].chunks {
                // A chunk not decoded yet stays so, with the mapping to apply at its first read.
                if let lazy = chunk.mappingUndecoded(mapping, composed: &composed) {
                    chunks.append(lazy)
                } else {
                    chunks.append(TableChunk(columns: mapping.columns(from: chunk.columns, count: chunk.count)))
                }
            }
            newTables.append(EntityTable(layout: layout, chunks: chunks))
        }
        return (newTables, newKeys)
    }

    /// How a chunk of `oldLayout`'s rows becomes one of `layout`'s under `entityMap`: the key
    /// and version columns kept, each kept property's column (converted when its type or
    /// optionality changed), each new attribute's default in every row.
    func chunkMapping(_ entityMap: EntityMap, from oldLayout: EntityLayout, to layout: EntityLayout) -> ChunkColumnMapping {
        var sources = [ChunkColumnMapping.Source(base: .stored(EntityLayout.primaryKeyColumn)),
                       ChunkColumnMapping.Source(base: .stored(EntityLayout.versionColumn))]
        for (p, property) in layout.properties.enumerated() {
            let fill = layout.entity.attributes.indices.contains(p) ? layout.entity.attributes[p].defaultValue : .null
            guard let from = entityMap.properties[p] else {
                sources.append(.init(base: .constant(fill, layout.table.columns[property.column].kind)))
                continue
            }
            let old = oldLayout.properties[from]
            let nils = property.isOptional ? AttributeValue.null : fill
            var source = ChunkColumnMapping.Source(base: .stored(old.column))
            if old.type != property.type || !nils.isNull {
                source.conversions = [.init(from: old.type, to: property.type, fill: nils)]
            }
            sources.append(source)
        }
        return ChunkColumnMapping(sources: sources, table: layout.table)
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
