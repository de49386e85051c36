extension ObjectContext {
    /// The destination objects whose inverse key points at `object`: the store's rows,
    /// corrected by this context's pending changes, in primary-key order.
    ///
    /// The objects made for stored rows are faults that remember where the row is in the
    /// version read (a ``FaultHint``, as a fetch's results do), so reading one's values
    /// fires the fault without looking the row up while the store publishes nothing newer.
    /// The rows are placed before any object is made, and the store's ``SnapshotDamage``
    /// checked after that: a hint never holds a failed chunk's placeholder columns.
    ///
    /// - Throws: the store's damage, when a chunk failed at its first decode.
    func relatedObjects(of object: ManagedObject, destination: Int, inverseProperty: Int) throws(StrataError) -> [ManagedObject] {
        let target = object.primaryKey
        let version = store.currentVersion
        let table = version.tables[destination]
        var keys = object.lifecycle == .inserted ? [] : Self.storedKeys(pointingAt: target, in: table, property: inverseProperty)
        // Ascending and distinct as the index (values, then keys) and the chunks (by key)
        // give them; checked, since the row cursor relies on it.
        if zip(keys, keys.dropFirst()).contains(where: { $0 >= $1 }) { keys = Set(keys).sorted() }
        if !changed.isEmpty {
            keys = applyPendingChanges(to: keys, pointingAt: target, destination: destination, inverseProperty: inverseProperty)
        }
        // Every row placed (its chunk decoded) before the damage check, and that check before
        // any object gets a hint.
        var cursor = EntityTable.RowCursor(table)
        let places = keys.map { cursor.place(of: $0) }
        try store.snapshotDamage.check()
        // Written in place into a buffer of the right size: appending checked the array's
        // uniqueness and capacity for every object.
        return [ManagedObject](unsafeUninitializedCapacity: keys.count) { objects, count in
            // The chunk of the last place, with its row versions (most places share a chunk),
            // in plain variables: read out of a tuple, the chunk and its versions were retained
            // and released for every object.
            var chunkIndex = -1
            var chunk: TableChunk?
            var versions: [Int64] = []
            for position in keys.indices {
                let related = self.object(layoutIndex: destination, primaryKey: keys[position])
                guard related.lifecycle != .deleted, related.lifecycle != .invalid else { continue }
                if let place = places[position], related.holdsNoRow, related.lifecycle == .persisted {
                    if chunkIndex != place.chunk {
                        chunkIndex = place.chunk
                        chunk = table.chunks[place.chunk]
                        versions = chunk.unsafelyUnwrapped.versions
                    }
                    related.giveHint(FaultHint(row: .row(place.row, of: chunk.unsafelyUnwrapped),
                                               rowVersion: UInt64(bitPattern: versions[place.row]), fetchedLSN: version.lsn), in: self)
                }
                (objects.baseAddress.unsafelyUnwrapped + count).initialize(to: related)
                count += 1
            }
        }
    }

    /// The primary keys of `table`'s rows whose `property` (a to-one key) is `target`,
    /// ascending: through the index on that key, or a scan of its column without one.
    private static func storedKeys(pointingAt target: Int64, in table: EntityTable, property: Int) -> [Int64] {
        if let index = table.index(leadingWith: property) { return index.keys(equalTo: target) }
        var keys: [Int64] = []
        let column = table.layout.properties[property].column
        for chunk in table.chunks {
            guard case .int64(let values) = chunk.columns[column].values else { continue }
            let validity = chunk.columns[column].validity
            let pks = chunk.primaryKeys
            for row in values.indices where values[row] == target && (validity?[row] ?? true) {
                keys.append(pks[row])
            }
        }
        return keys
    }

    /// `keys` (ascending) corrected by this context's pending changes: the objects that now
    /// point at `target` are added, those that no longer do (deleted, or pointed elsewhere)
    /// removed. Ascending still.
    private func applyPendingChanges(to keys: [Int64], pointingAt target: Int64, destination: Int,
                                     inverseProperty: Int) -> [Int64] {
        var added: [Int64] = [], removed = Set<Int64>()
        for candidate in changed.values where candidate.layoutIndex == destination {
            let key = candidate.primaryKey
            if candidate.lifecycle == .deleted { removed.insert(key); continue }
            let value = candidate.pending[inverseProperty] ?? candidate.committed?[inverseProperty]
            if value == .int(target) { added.append(key); removed.remove(key) } else if candidate.pending[inverseProperty] != nil { removed.insert(key) }
        }
        guard !added.isEmpty || !removed.isEmpty else { return keys }
        return Set(keys).union(added).subtracting(removed).sorted()
    }
}
