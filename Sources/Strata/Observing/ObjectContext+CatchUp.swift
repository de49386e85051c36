extension ObjectContext {
    /// Brings the loaded objects of the entity at `index` up to `version` at once, as the
    /// automatic merge of the transactions up to it will: those whose row changed are
    /// reloaded (unsaved changes kept on top), those whose row is gone are dropped.
    ///
    /// A fetched-results controller calls it before it reports a change, so that its
    /// observer reads new values whichever of the two hears of a commit first.
    /// - Complexity: O(registered objects), whatever the number of rows that changed.
    func catchUpLoadedObjects(entity index: Int, to version: StoreVersion) {
        var stale: [ManagedObject] = []
        version.withTable(index) { table in
            registry.forEachSlot { key, slot in
                guard key.entity == index, !isKnownUniquelyReferenced(&slot), let object = slot,
                      object.hasCommittedValues, object.lifecycle == .persisted || object.lifecycle == .deleted else { return }
                guard let location = table.locate(key.primaryKey) else { stale.append(object); return }
                if table.version(at: location) > object.committedVersion { stale.append(object) }
            }
        }
        for object in stale { refresh(object, mergeChanges: true) }
    }
}
