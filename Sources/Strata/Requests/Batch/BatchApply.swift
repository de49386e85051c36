extension PersistentStore {
    /// Applies a batch update record (execution and replay share this).
    static func apply(_ record: BatchUpdateRecord, to version: inout StoreVersion, lsn: UInt64) throws {
        guard version.tables.indices.contains(record.entity) else { throw PayloadError("unknown entity #\(record.entity)") }
        // A record names only properties of its entity and at most every row of it (checked
        // before the keys are expanded, so a damaged record cannot ask for a huge allocation).
        let properties = version.tables[record.entity].layout.properties.indices
        guard record.assignments.allSatisfy({ properties.contains($0.property) && properties.contains($0.source) }) else {
            throw PayloadError("a batch update of an unknown property")
        }
        guard record.keys.count <= version.tables[record.entity].rowCount else { throw PayloadError("a batch update of more rows than exist") }
        var editor = TableEditor(table: version.tables[record.entity])
        try editor.bulkUpdate(record.keys.keys, assignments: record.assignments, version: lsn)
        version.tables[record.entity] = editor.table
    }

    /// Applies a batch delete record: nullifications first, then deletions.
    static func apply(_ record: BatchDeleteRecord, to version: inout StoreVersion, lsn: UInt64) throws {
        for (entity, byProperty) in record.nullifications.sorted(by: { $0.key < $1.key }) {
            guard version.tables.indices.contains(entity) else { throw PayloadError("unknown entity #\(entity)") }
            var editor = TableEditor(table: version.tables[entity])
            for (property, keys) in byProperty.sorted(by: { $0.key < $1.key }) {
                guard editor.table.layout.properties.indices.contains(property), keys.count <= editor.table.rowCount else {
                    throw PayloadError("a batch delete nullifies an unknown property or more rows than exist")
                }
                try editor.bulkNullify(keys.keys, property: property, version: lsn)
            }
            version.tables[entity] = editor.table
        }
        for (entity, keys) in record.deletes.sorted(by: { $0.key < $1.key }) {
            guard version.tables.indices.contains(entity) else { throw PayloadError("unknown entity #\(entity)") }
            guard keys.count <= version.tables[entity].rowCount else { throw PayloadError("a batch delete of more rows than exist") }
            var editor = TableEditor(table: version.tables[entity])
            try editor.bulkDelete(keys.keys)
            version.tables[entity] = editor.table
        }
    }
}
