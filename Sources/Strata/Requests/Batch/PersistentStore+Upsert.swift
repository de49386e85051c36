extension PersistentStore {
    /// The transaction of an upsert batch insert of `rows` (each with every stored property,
    /// defaults filled in; `given` lists the properties each row set), built against `head`
    /// under the writer lock: a row whose values of the entity's first uniqueness constraint
    /// match a stored row (or an earlier row of the request) updates it with its given
    /// properties; any other row is inserted. `result` receives the inserted keys and the
    /// keys of stored rows updated.
    func buildUpsert(_ rows: [[AttributeValue]], given: [[Int]], layout: EntityLayout, head: StoreVersion, lsn: UInt64,
                     nextKeys: inout [Int64], result: inout (inserted: [Int64], updated: [Int64])) throws -> BuiltTransaction? {
        guard !rows.isEmpty else { return nil }
        let constraint = layout.uniquenessConstraints[0]
        var inserts: [Changeset.Insert] = []
        // Stored rows updated, by key: their new values, merged row by row.
        var updates: [Int64: [Int: AttributeValue]] = [:]
        var updateOrder: [Int64] = []
        // Rows of this request by constrained values: where their insert is, or the stored key.
        var seen: [[AttributeValue]: Target] = [:]
        var nextKey = nextKeys[layout.index]
        head.withTable(layout.index) { table in
            let index = table.indexes[constraint.index].index(for: table)
            for (position, row) in rows.enumerated() {
                let values = constraint.properties.map { row[$0] }
                if values.contains(where: \.isNull) {
                    inserts.append(Changeset.Insert(primaryKey: nextKey, values: row))
                    nextKey += 1
                    continue
                }
                let target: Target
                if let known = seen[values] {
                    target = known
                } else if let stored = index.primaryKeys(equalTo: values).first {
                    target = .stored(stored)
                } else {
                    target = .inserted(inserts.count)
                    inserts.append(Changeset.Insert(primaryKey: nextKey, values: row))
                    nextKey += 1
                    seen[values] = target
                    continue
                }
                seen[values] = target
                switch target {
                case .stored(let key):
                    if updates[key] == nil { updateOrder.append(key) }
                    for property in given[position] { updates[key, default: [:]][property] = row[property] }
                case .inserted(let at):
                    for property in given[position] { inserts[at].values[property] = row[property] }
                }
            }
        }
        var changes = Changeset()
        changes.entities[layout.index] = Changeset.EntityChanges(
            inserts: inserts,
            updates: updateOrder.map { key in
                Changeset.Update(primaryKey: key, expectedVersion: 0,
                                 values: updates[key]!.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            })
        var next = head
        try Self.apply(changes, to: &next, lsn: lsn, nextKeys: &nextKeys)
        let version = StoreVersion(lsn: lsn, tables: next.tables)
        try refuseUniquenessConflicts(changes, in: version)
        result = (inserts.map(\.primaryKey), updateOrder)
        return BuiltTransaction(next: version, payload: ChangesetCodec.encode(changes),
                                inserted: objectIDSet([(layout.index, KeyRanges(sortedKeys: inserts.map(\.primaryKey)))]),
                                updated: objectIDSet([(layout.index, KeyRanges(sortedKeys: updateOrder.sorted()))]),
                                history: HistoryEntry.groups(changes, layouts: layouts))
    }

    /// Throws `.constraintConflict` when `changes`, applied in `version`, left two rows
    /// sharing a constrained value.
    func refuseUniquenessConflicts(_ changes: Changeset, in version: StoreVersion) throws {
        let broken = uniquenessConflicts(changes, in: version)
        guard !broken.isEmpty else { return }
        throw UniquenessConflicts(conflicts: broken, totalCount: broken.count)
            .error("The batch insert would break a uniqueness constraint (IDs of new rows are the ones they would have had)",
                   advice: "Nothing was written. Remove the duplicates, or set the request's mode to .upsert.")
    }
}

extension PersistentStore {
    /// Throws `.constraintConflict` when a batch update of `keys` with `assignments`, applied
    /// in `version`, left two rows sharing a constrained value. Free when no assignment sets
    /// a constrained property.
    func refuseUniquenessConflicts(updating keys: KeyRanges, of layout: EntityLayout, assignments: [ResolvedAssignment],
                                   in version: StoreVersion) throws {
        let constrained = Set(layout.uniquenessConstraints.flatMap(\.properties))
        guard assignments.contains(where: { constrained.contains($0.property) }) else { return }
        let broken = version.withTable(layout.index) { Self.uniquenessConflicts(in: $0, keys: keys.keys, storeID: storeID) }
        guard !broken.isEmpty else { return }
        throw UniquenessConflicts(conflicts: broken, totalCount: broken.count)
            .error("The batch update would break a uniqueness constraint", advice: "Nothing was written. Narrow the predicate, or set the constrained attribute row by row.")
    }
}

/// Where an upserted row goes: a stored row (by key) or an insert of the request (by position).
private enum Target {
    case stored(Int64)
    case inserted(Int)
}
