import Foundation

extension MigrationState {
    /// The most duplicate groups a refused migration lists (the rest are counted).
    static let listedDuplicates = 20

    /// Throws `.constraintConflict` listing the rows that share constrained values when
    /// this (migrated) state has uniqueness constraints that `previous` lacked and its rows
    /// already break them: up to ``listedDuplicates`` groups with their values and IDs, and
    /// how many there are in all.
    ///
    /// - Complexity: O(rows of the entities that gained a constraint).
    func refuseDuplicates(addedSince previous: Schema, directory: String) throws {
        var found: [UniquenessConflict] = []
        var total = 0
        for layout in layouts {
            let before = previous.entity(named: layout.entity.name)?.uniquenessConstraints ?? []
            for (position, constraint) in layout.entity.uniquenessConstraints.enumerated()
            where !before.contains(constraint) && position < layout.uniquenessConstraints.count {
                let (groups, count) = tables[layout.index].duplicates(ofConstraint: position, limit: Self.listedDuplicates - found.count)
                total += count
                let names = layout.uniquenessConstraints[position].properties.map { layout.properties[$0].name }
                for group in groups {
                    found.append(UniquenessConflict(entityName: layout.entity.name, properties: names, values: group.values,
                                                    objectIDs: group.keys.map {
                                                        ObjectID(storeID: metadata.storeID, entityName: layout.entity.name, primaryKey: $0)
                                                    }))
                }
            }
        }
        guard total > 0 else { return }
        throw UniquenessConflicts(conflicts: found, totalCount: total)
            .error("The store at \(directory) was not migrated, and nothing was written: a new uniqueness constraint is broken by rows it already has",
                   advice: "Delete or change the duplicates (with the store's current schema), or migrate with a custom stage that does, then add the constraint.")
    }
}
