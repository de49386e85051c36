extension ObjectContext {
    /// Resolves the uniqueness conflicts of a refused save by the merge policy, as Core Data
    /// does: the objects this context inserts with a constrained value that another row
    /// already has are merged into that row. Returns whether anything was resolved (when
    /// not, the save throws the conflict).
    ///
    /// - The row that survives is the stored one when there is one, or else the inserted
    ///   object with the lowest primary key.
    /// - `.objectTrump` and `.overwrite`: the inserted objects' values win, property by
    ///   property, over the survivor's (an inserted object's changes are the values that
    ///   differ from the attribute's default; later inserts win over earlier ones).
    ///   `.storeTrump` and `.rollback`: the survivor keeps its values.
    /// - When the survivor is a stored row and this context does not already hold its
    ///   object, the first inserted object takes over its ``ObjectID`` and becomes that
    ///   row's object (no longer inserted; a save updates the row). Every other inserted
    ///   object of the group is dropped from the context (``ManagedObject/isInserted`` turns
    ///   false and using it throws `.misuse`). To-one references to a dropped or renamed
    ///   object in this context's unsaved changes are pointed at the survivor.
    ///
    /// A conflict this context cannot settle that way (two stored rows, or only updates of
    /// existing objects involved) is left for the save to throw.
    func resolveUniqueness(_ conflicts: UniquenessConflicts) throws -> Bool {
        guard mergePolicy != .error else { return false }
        let objectWins = mergePolicy == .objectTrump || mergePolicy == .overwrite
        var touched: Set<ObjectID> = []
        var resolvedAny = false
        for conflict in conflicts.conflicts where conflict.objectIDs.allSatisfy({ !touched.contains($0) }) {
            var inserted: [ManagedObject] = []
            var others: [ObjectID] = []
            for id in conflict.objectIDs {
                if let object = registered(id), object.lifecycle == .inserted { inserted.append(object) } else { others.append(id) }
            }
            guard !inserted.isEmpty, others.count <= 1 else { continue }
            touched.formUnion(conflict.objectIDs)
            inserted.sort { $0.primaryKey < $1.primaryKey }
            let layout = store.layouts[inserted[0].layoutIndex]
            let defaults = store.insertDefaults[layout.index]
            // The survivor, and the inserted objects merged into it.
            let survivor: ManagedObject
            var merged = inserted
            if let stored = others.first {
                if let existing = registered(stored) {
                    survivor = existing
                    if !survivor.hasCommittedValues { try survivor.fireFault() }
                } else {
                    guard let row = try store.checkingDamage({ store.headVersion.withTable(layout.index, { $0.row(stored.primaryKey) }) }) else { continue }
                    survivor = merged.removeFirst()
                    let values = survivor.committed
                    take(survivor, over: stored, row: row)
                    if objectWins, let values { survivor.pending = Self.changes(values, over: row.values, defaults: defaults) }
                }
            } else {
                survivor = merged.removeFirst()
            }
            for object in merged {
                if objectWins, let values = object.committed {
                    let base = survivor.lifecycle == .inserted ? survivor.committed : (survivor.committed.map { row in
                        var current = row
                        for (property, value) in survivor.pending { current[property] = value }
                        return current
                    })
                    if let base {
                        for (property, value) in Self.changes(values, over: base, defaults: defaults) {
                            if survivor.lifecycle == .inserted { survivor.setCommittedValue(property, value) } else { survivor.pending[property] = value }
                        }
                    }
                }
                drop(object, redirectingTo: survivor.primaryKey)
            }
            noteChanged(survivor)
            resolvedAny = true
        }
        return resolvedAny
    }

    /// The properties of `values` that differ from `defaults` (an inserted object's changes)
    /// and from `base`.
    private static func changes(_ values: RowValues, over base: RowValues, defaults: [AttributeValue]) -> [Int: AttributeValue] {
        var changes: [Int: AttributeValue] = [:]
        for property in defaults.indices {
            let value = values[property]
            if value != defaults[property] && value != base[property] { changes[property] = value }
        }
        return changes
    }

    /// Makes inserted `object` the object of the stored row `id`, read as `row`.
    private func take(_ object: ManagedObject, over id: ObjectID, row: (values: RowValues, version: UInt64)) {
        let oldKey = object.registryKey
        let oldPrimaryKey = object.primaryKey
        registry[oldKey] = nil
        changed[oldKey] = nil
        object.objectID = id
        object.lifecycle = .persisted
        object.committed = row.values
        object.committedVersion = row.version
        object.pending = [:]
        registry[object.registryKey] = object
        redirect(layoutIndex: object.layoutIndex, from: oldPrimaryKey, to: id.primaryKey)
    }

    /// Removes inserted `object` from the context, pointing references to it at `survivor`.
    private func drop(_ object: ManagedObject, redirectingTo survivor: Int64) {
        let key = object.registryKey
        object.lifecycle = .invalid
        registry[key] = nil
        changed[key] = nil
        redirect(layoutIndex: object.layoutIndex, from: key.primaryKey, to: survivor)
    }

    /// Points the to-one references to row `old` of the entity at `layoutIndex` in this
    /// context's unsaved changes at row `new`.
    private func redirect(layoutIndex: Int, from old: Int64, to new: Int64) {
        for object in changed.values {
            let properties = store.layouts[object.layoutIndex].properties
            for (position, property) in properties.enumerated() where property.destination == layoutIndex {
                switch object.lifecycle {
                case .inserted where object.committed?[position] == .int(old):
                    object.setCommittedValue(position, .int(new))
                case .persisted where object.pending[position] == .int(old):
                    object.pending[position] = .int(new)
                default:
                    break
                }
            }
        }
    }
}
