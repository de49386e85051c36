import Foundation

extension PersistentStore {
    /// The uniqueness conflicts the rows with `keys` of `table` take part in (rows no longer
    /// there are skipped), one per group of rows sharing a constrained value. The table's
    /// indexes must describe its chunks (every ``StoreVersion`` brings them up to date).
    ///
    /// The constraint at position `exempt` is not checked (nor its index built).
    ///
    /// - Complexity: O(keys × constraints × (log n + matches)).
    static func uniquenessConflicts(in table: borrowing EntityTable, keys: [Int64], storeID: UUID,
                                    exempt: Int? = nil) -> [UniquenessConflict] {
        let layout = table.layout
        guard !layout.uniquenessConstraints.isEmpty, !keys.isEmpty else { return [] }
        var found: [UniquenessConflict] = []
        for (position, constraint) in layout.uniquenessConstraints.enumerated() where position != exempt {
            let index = table.indexes[constraint.index].index(for: table)
            // Values already probed: many changed rows with one value cost one probe.
            var seen: Set<[AttributeValue]> = []
            for key in keys {
                guard let location = table.locate(key) else { continue }
                let values = constraint.properties.map { table.value($0, at: location) }
                // A row with nil in a constrained property is exempt, as in SQL.
                if values.contains(where: \.isNull) || !seen.insert(values).inserted { continue }
                let sharing = index.primaryKeys(equalTo: values)
                guard sharing.count > 1 else { continue }
                found.append(UniquenessConflict(entityName: layout.entity.name,
                                                properties: constraint.properties.map { layout.properties[$0].name },
                                                values: values, objectIDs: sharing.map {
                                                    ObjectID(storeID: storeID, entityName: layout.entity.name, primaryKey: $0)
                                                }))
            }
        }
        return found
    }

    /// The keys of the rows `changes` inserts into or updates in the entity at `index`
    /// whose constrained properties it may change.
    static func keysToCheck(_ changes: Changeset.EntityChanges, layout: EntityLayout) -> [Int64] {
        guard !layout.uniquenessConstraints.isEmpty else { return [] }
        let constrained = Set(layout.uniquenessConstraints.flatMap(\.properties))
        var keys = changes.inserts.primaryKeys
        for update in changes.updates where update.values.contains(where: { constrained.contains($0.property) }) {
            keys.append(update.primaryKey)
        }
        return keys
    }

    /// The uniqueness conflicts `changes` made in `version` (the version they were applied
    /// to), leaving out the constraint `exempting` names (an entity and a constraint position).
    func uniquenessConflicts(_ changes: Changeset, in version: StoreVersion,
                             exempting: (entity: Int, constraint: Int)? = nil) -> [UniquenessConflict] {
        var found: [UniquenessConflict] = []
        for (index, entity) in changes.entities.sorted(by: { $0.key < $1.key }) {
            let keys = Self.keysToCheck(entity, layout: layouts[index])
            if keys.isEmpty { continue }
            let exempt = exempting?.entity == index ? exempting?.constraint : nil
            found += version.withTable(index) { Self.uniquenessConflicts(in: $0, keys: keys, storeID: storeID, exempt: exempt) }
        }
        return found
    }
}

extension EntityTable {
    /// Every group of rows that share the values of uniqueness constraint `constraint` (a
    /// position in the layout's constraints), in index order, up to `limit` groups, and how
    /// many groups there are in all.
    ///
    /// - Complexity: O(rows).
    func duplicates(ofConstraint constraint: Int, limit: Int) -> (groups: [(values: [AttributeValue], keys: [Int64])], total: Int) {
        let (properties, position) = layout.uniquenessConstraints[constraint]
        var groups: [(values: [AttributeValue], keys: [Int64])] = []
        var total = 0
        let index = indexes[position].index(for: self)
        index.forEachRunOfEqualValues { keys in
            guard let location = locate(keys[0]) else { return }
            let values = properties.map { value($0, at: location) }
            if values.contains(where: \.isNull) { return }
            total += 1
            if groups.count < limit { groups.append((values, keys)) }
        }
        return (groups, total)
    }
}
