extension PersistentStore {
    /// Runs a batch insert: every row gets a permanent ID and is written in one transaction.
    /// Validation rules are skipped; types are checked, unknown keys refused, missing keys
    /// take the attribute's default (a required attribute with neither value nor default is
    /// refused), and to-one keys must name existing objects. Uniqueness constraints hold:
    /// with ``BatchInsertRequest/Mode/upsert`` a row matching a stored row updates it.
    ///
    /// - Throws: `.unknownEntity`, `.unknownKey`, `.typeMismatch` naming the row index and
    ///   key; `.constraintConflict` (cause ``UniquenessConflicts``) when rows would share a
    ///   constrained value; `.misuse` for an upsert into an entity without uniqueness
    ///   constraints. Nothing is written then.
    /// - Complexity: O(rows) without constraints; O(rows × log n) with them. An upsert whose
    ///   constraint index no fetch has built yet finds its matches in one pass, O(n).
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        let layout = try self.layout(named: request.entityName)
        let entity = validationSchema.entity(named: layout.entity.name) ?? layout.entity
        let defaults = layout.properties.map { entity.attribute(named: $0.name)?.defaultValue ?? .null }
        let upsert = request.mode == .upsert
        if upsert && layout.uniquenessConstraints.isEmpty {
            throw StrataError(.misuse, "An upsert batch insert into \(layout.entity.name) matches rows on its first uniqueness constraint, and it has none; declare one (Entity(\"\(layout.entity.name)\", uniquenessConstraints: [[...]])) or use mode .insert. Nothing was written.", entity: layout.entity.name)
        }
        var rows: [[AttributeValue]] = []
        rows.reserveCapacity(request.count)
        // For an upsert: the properties each row gives (an update sets only those).
        var given: [[Int]] = []
        try request.forEachObject { index, object in
            var values = defaults
            for (key, value) in object {
                guard let property = layout.propertyIndex[key] else {
                    let suggestion = Schema.nearestName(to: key, among: layout.properties.map(\.name))
                    throw StrataError(.unknownKey, "Row \(index) of the batch insert has the key '\(key)', which \(layout.entity.name) does not have" + (suggestion.map { "; did you mean '\($0)'?" } ?? ".") + " Nothing was written.", entity: layout.entity.name, key: key)
                }
                let type = layout.properties[property].type
                let fits = type.map { value.conforms(to: $0) } ?? (value.isNull || { if case .int = value { return true } else { return false } }())
                guard fits else {
                    throw StrataError(.typeMismatch, "Row \(index) of the batch insert: \(layout.entity.name).\(key) is \(type?.rawValue ?? "a to-one relationship (give the primary key as an integer)"); a \(value.kindName) value cannot be stored in it. Nothing was written.", entity: layout.entity.name, key: key)
                }
                values[property] = value
            }
            if upsert { given.append(object.keys.compactMap { layout.propertyIndex[$0] }.sorted()) }
            for (p, property) in layout.properties.enumerated() where property.type != nil && !property.isOptional && values[p].isNull {
                throw StrataError(.typeMismatch, "Row \(index) of the batch insert has no value for the required attribute \(layout.entity.name).\(property.name), which has no default. Nothing was written.", entity: layout.entity.name, key: property.name)
            }
            rows.append(values)
        }
        var inserted = KeyRanges(sortedKeys: [])
        var upserted: (inserted: [Int64], updated: [Int64]) = ([], [])
        let outcome = try commitTransaction(kind: .batchInsert, author: request.transactionAuthor) { head, lsn, nextKeys in
            guard !rows.isEmpty else { return nil }
            for (p, property) in layout.properties.enumerated() {
                guard let destination = property.destination else { continue }
                for (index, row) in rows.enumerated() {
                    if case .int(let target) = row[p], head.tables[destination].locate(target) == nil {
                        throw StrataError(.typeMismatch, "Row \(index) of the batch insert: \(layout.entity.name).\(property.name) refers to \(layouts[destination].entity.name) \(target), which does not exist. Nothing was written.", entity: layout.entity.name, key: property.name)
                    }
                }
            }
            if upsert {
                return try buildUpsert(rows, given: given, layout: layout, head: head, lsn: lsn, nextKeys: &nextKeys, result: &upserted)
            }
            let first = nextKeys[layout.index]
            var changes = Changeset()
            changes.entities[layout.index] = Changeset.EntityChanges(
                inserts: rows.enumerated().map { Changeset.Insert(primaryKey: first + Int64($0.offset), values: $0.element) })
            var next = head
            try Self.apply(changes, to: &next, lsn: lsn, nextKeys: &nextKeys)
            let version = StoreVersion(lsn: lsn, tables: next.tables)
            try refuseUniquenessConflicts(changes, in: version)
            inserted = KeyRanges(first: first, count: Int64(rows.count))
            return BuiltTransaction(next: version, payload: ChangesetCodec.encode(changes),
                                    inserted: objectIDSet([(layout.index, KeyRanges(first: first, count: Int64(rows.count)))]),
                                    history: [HistoryEntry.Group(type: .insert, entity: layout.entity.name, properties: [],
                                                                 keys: KeyRanges(first: first, count: Int64(rows.count)))])
        }
        if upsert {
            let ids = request.resultType == .objectIDs
                ? objectIDSet([(layout.index, KeyRanges(sortedKeys: Array(Set(upserted.inserted + upserted.updated)).sorted()))]) : nil
            return BatchResult(status: true, objectIDSet: ids,
                               count: request.resultType == .count ? upserted.inserted.count + upserted.updated.count : nil,
                               lsn: outcome?.0.lsn ?? 0)
        }
        return BatchResult(status: true, objectIDSet: request.resultType == .objectIDs ? objectIDSet([(layout.index, inserted)]) : nil,
                           count: request.resultType == .count ? inserted.count : nil, lsn: outcome?.0.lsn ?? 0)
    }
}
