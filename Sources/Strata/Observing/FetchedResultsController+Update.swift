import Foundation

extension FetchedResultsController {
    /// A result's sort values in `version` (and its row there), or `nil` when the row does
    /// not exist there or does not match the predicate.
    private func matchingSortValues(_ key: Int64, in version: StoreVersion) -> [AttributeValue]? {
        guard let location = version.withTable(plan.layout.index, { $0.locate(key) }),
              plan.matches(version, chunk: location.chunk, row: location.row) else { return nil }
        return version.withTable(plan.layout.index) { table in plan.sort.map { table.value($0.property, at: location) } }
    }

    /// The sort values of the row with `key` in `version` (it must exist there).
    private func sortValues(_ key: Int64, in version: StoreVersion) -> [AttributeValue] {
        version.withTable(plan.layout.index) { table in
            guard let location = table.locate(key) else { return [] }
            return plan.sort.map { table.value($0.property, at: location) }
        }
    }

    /// Whether the result (`a`, `aKey`) comes before (`b`, `bKey`): the fetch's order, ties
    /// by primary key.
    private func precedes(_ a: [AttributeValue], _ aKey: Int64, _ b: [AttributeValue], _ bKey: Int64) -> Bool {
        for (index, sort) in plan.sort.enumerated() {
            let result = plan.compare(a[index], b[index], caseInsensitive: sort.caseInsensitive)
            if result != .orderedSame { return sort.ascending ? result == .orderedAscending : result == .orderedDescending }
        }
        return aKey < bKey
    }

    /// The offset where (`values`, `key`) belongs in the results, whose sort values are
    /// read from `version`.
    private func position(of values: [AttributeValue], _ key: Int64, in version: StoreVersion) -> Int {
        keys.partitionPoint { other in precedes(sortValues(other, in: version), other, values, key) }
    }

    private func sectionName(of values: [AttributeValue]) -> String {
        sectionProperty == nil ? "" : Self.sectionName(values[0])
    }

    /// Changes the results from those of `old` to those of `new` and says how: from the
    /// rows the versions do not share when they are few, else by fetching again and
    /// comparing. `nil` when nothing of this controller's entity changed.
    func difference(from old: StoreVersion, to new: StoreVersion) -> FetchedResultsChange? {
        let request = plan.request
        let incremental = request.fetchLimit == 0 && request.fetchOffset == 0 && !plan.followsRelationships
        // Past an eighth of the entity's rows, fetching again costs less than placing each
        // changed row (O(log n) lookups apiece); a few chunks' worth always goes row by row.
        let rows = new.tables[plan.layout.index].rowCount
        let limit = incremental ? max(4 * EntityTable.chunkRows, rows / 8) : 0
        let delta = new.delta(ofEntity: plan.layout.index, since: old, limit: limit)
        if let delta, delta.isEmpty, incremental { return nil }
        if let delta, incremental { return apply(delta, from: old, to: new) }
        return refetch(from: old, to: new)
    }

    /// Applies the changed rows one by one: each is looked up in the results by its old
    /// values and placed by its new ones.
    /// - Complexity: O(k (n / 1024 + log n · log rows)) for k changed rows.
    private func apply(_ delta: TableDelta, from old: StoreVersion, to new: StoreVersion) -> FetchedResultsChange? {
        let previousSections = sectionRuns.names
        var removals: [(offset: Int, key: Int64)] = []
        var insertions: [(key: Int64, values: [AttributeValue])] = []
        var moved = Set<Int64>()
        var stayed: [(key: Int64, values: [AttributeValue])] = []
        for key in delta.changed + delta.deleted {
            let before = matchingSortValues(key, in: old)
            let after = matchingSortValues(key, in: new)
            switch (before, after) {
            case (nil, nil):
                continue
            case (let before?, nil):
                removals.append((position(of: before, key, in: old), key))
            case (nil, let after?):
                insertions.append((key, after))
            case (let before?, let after?):
                if before == after {
                    stayed.append((key, after))
                } else {
                    removals.append((position(of: before, key, in: old), key))
                    insertions.append((key, after))
                    moved.insert(key)
                }
            }
        }
        if removals.isEmpty && insertions.isEmpty && stayed.isEmpty { return nil }
        removals.sort { $0.offset > $1.offset }
        var oldOffsets: [Int64: Int] = [:]
        for removal in removals {
            keys.remove(at: removal.offset)
            if sectionProperty != nil { sectionRuns.remove(at: removal.offset) }
            oldOffsets[removal.key] = removal.offset
        }
        for insertion in insertions {
            let offset = position(of: insertion.values, insertion.key, in: new)
            keys.insert(insertion.key, at: offset)
            if sectionProperty != nil { sectionRuns.insert(sectionName(of: insertion.values), at: offset) }
        }
        let entity = context.store.idEntities[plan.layout.index]
        func id(_ key: Int64) -> ObjectID { ObjectID(entity: entity, primaryKey: key) }
        var changes: [CollectionDifference<ObjectID>.Change] = []
        var newOffsets: [Int64: Int] = [:]
        for insertion in insertions {
            newOffsets[insertion.key] = position(of: insertion.values, insertion.key, in: new)
        }
        for removal in removals {
            changes.append(.remove(offset: removal.offset, element: id(removal.key), associatedWith: moved.contains(removal.key) ? newOffsets[removal.key] : nil))
        }
        for insertion in insertions {
            changes.append(.insert(offset: newOffsets[insertion.key]!, element: id(insertion.key), associatedWith: moved.contains(insertion.key) ? oldOffsets[insertion.key] : nil))
        }
        var updated = stayed.map { position(of: $0.values, $0.key, in: new) }
        for key in moved { updated.append(newOffsets[key]!) }
        updated.sort()
        return makeChange(lsn: new.lsn, changes: changes, updated: updated, previousSections: previousSections)
    }

    /// Fetches again from `new` and compares with the results of `old`: results whose row
    /// changed after `old` and whose sort values differ count as moved, the rest keep their
    /// order (their values, and so their order, are the same in both versions).
    /// - Complexity: O(rows of the entity) plus O(m log m) to order m matches.
    private func refetch(from old: StoreVersion, to new: StoreVersion) -> FetchedResultsChange? {
        let previousSections = sectionRuns.names
        let items = plan.order(plan.scan(new) ?? [], version: new)
        let oldKeys = keys.all
        var newIndex = [Int64: Int](minimumCapacity: items.count)
        for (offset, item) in items.enumerated() { newIndex[item.primaryKey] = offset }
        let table = new.tables[plan.layout.index], oldTable = old.tables[plan.layout.index]
        let entity = context.store.idEntities[plan.layout.index]
        func id(_ key: Int64) -> ObjectID { ObjectID(entity: entity, primaryKey: key) }
        var changes: [CollectionDifference<ObjectID>.Change] = []
        var kept = [Bool](repeating: false, count: items.count)
        var updated: [Int] = []
        for (offset, key) in oldKeys.enumerated() {
            guard let newOffset = newIndex[key] else {
                changes.append(.remove(offset: offset, element: id(key), associatedWith: nil))
                continue
            }
            kept[newOffset] = true
            guard case .row(_, let chunk, let row) = items[newOffset], table.chunks[Int(chunk)].version(at: Int(row)) > old.lsn else { continue }
            updated.append(newOffset)
            var moved = false
            if !plan.sort.isEmpty {
                if let location = oldTable.locate(key) {
                    moved = plan.sort.contains { oldTable.value($0.property, at: location) != table.value($0.property, at: (Int(chunk), Int(row))) }
                } else {
                    moved = true
                }
            }
            if moved {
                changes.append(.remove(offset: offset, element: id(key), associatedWith: newOffset))
                changes.append(.insert(offset: newOffset, element: id(key), associatedWith: offset))
            }
        }
        for (offset, item) in items.enumerated() where !kept[offset] {
            changes.append(.insert(offset: offset, element: id(item.primaryKey), associatedWith: nil))
        }
        keys = OrderedKeys(items.map(\.primaryKey))
        if let property = sectionProperty {
            sectionRuns = SectionRuns(items.lazy.map { Self.sectionName(self.plan.value(of: $0, property: property, version: new)) })
        }
        updated.sort()
        return makeChange(lsn: new.lsn, changes: changes, updated: updated, previousSections: previousSections)
    }

    private func makeChange(lsn: UInt64, changes: [CollectionDifference<ObjectID>.Change], updated: [Int],
                            previousSections: [String]) -> FetchedResultsChange {
        guard let objects = CollectionDifference(changes) else {
            preconditionFailure("Strata: a fetched-results controller computed an inconsistent difference (\(changes.count) changes); please report this.")
        }
        let sections = sectionRuns.names.difference(from: previousSections)
        return FetchedResultsChange(lsn: lsn, objects: objects, updatedOffsets: updated, sections: sections)
    }
}
