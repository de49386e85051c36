extension PersistentStore {
    /// Runs a batch delete: the matching rows, and what their delete rules cascade to, are
    /// removed in one transaction; keys pointing at them are nullified.
    ///
    /// - Throws: `.deleteDenied` naming the relationship when a deny rule applies (nothing
    ///   is written); `.unknownEntity`, `.unknownKey`, `.typeMismatch` for a bad predicate;
    ///   `.misuse` for IDs of several entities or of another store.
    /// - Complexity: O(rows) per entity the deletion reaches.
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        if let ids = request.objectIDs, ids.isEmpty {
            // An empty ID list names no entity; it deletes nothing, like a predicate that
            // matches nothing.
            return BatchResult(status: true, objectIDSet: request.resultType == .objectIDs ? ObjectIDSet() : nil,
                               count: request.resultType == .count ? 0 : nil, lsn: 0)
        }
        let plan = try FetchPlan(FetchRequest(entityName: request.entityName, predicate: request.predicate), store: self)
        let root = plan.layout.index
        var listed: [Int64]?
        if let ids = request.objectIDs {
            let entity = idEntities[root]
            guard ids.allSatisfy({ $0.belongs(to: entity) }) else {
                throw StrataError(.misuse, "A batch delete by IDs takes IDs of one entity of this store; split the request per entity.", entity: request.entityName)
            }
            listed = Self.sortedDistinct(ids.map(\.primaryKey))
        }
        var deletedRecord = BatchDeleteRecord()
        let outcome = try commitTransaction(kind: .batchDelete, author: request.transactionAuthor) { head, lsn, _ in
            let initial: [Int64]
            if let listed {
                decodeInParallel(head.tables[root], touching: listed, keysOnly: true)
                initial = Self.present(listed, in: head.tables[root])
            } else {
                initial = plan.matchingKeys(head)
                decodeInParallel(head.tables[root], touching: initial, keysOnly: true)
            }
            guard !initial.isEmpty else { return nil }
            let record = try resolveDelete(root: root, keys: initial, in: head)
            var next = head
            try Self.apply(record, to: &next, lsn: lsn)
            // The IDs stay key ranges until an observer or a merging context reads them.
            var updated: [(entity: Int, keys: KeyRanges)] = []
            for (entity, byProperty) in record.nullifications {
                let keys = byProperty.count == 1 ? byProperty.values.first!.keys
                    : Set(byProperty.values.flatMap(\.keys)).sorted()
                updated.append((entity, KeyRanges(sortedKeys: keys)))
            }
            deletedRecord = record
            return BuiltTransaction(next: StoreVersion(lsn: lsn, tables: next.tables), payload: record.encoded(),
                                    updated: objectIDSet(updated),
                                    deleted: objectIDSet(record.deletes.map { ($0.key, $0.value) }),
                                    history: historyLog == nil ? [] : HistoryEntry.groups(record, layouts: layouts))
        }
        var deletedIDs: ObjectIDSet?
        if request.resultType == .objectIDs {
            // Iterated as `ObjectID`s compare: by entity name, then primary key.
            deletedIDs = objectIDSet(deletedRecord.deletes.sorted { layouts[$0.key].entity.name < layouts[$1.key].entity.name }
                .map { ($0.key, $0.value) })
        }
        return BatchResult(status: true, objectIDSet: deletedIDs,
                           count: request.resultType == .count ? deletedRecord.deletes.values.reduce(0) { $0 + $1.count } : nil,
                           lsn: outcome?.0.lsn ?? 0)
    }

    /// `keys` ascending without repeats (a list of IDs usually comes sorted already).
    private static func sortedDistinct(_ keys: [Int64]) -> [Int64] {
        var sorted = keys
        if zip(keys, keys.dropFirst()).contains(where: { $0 >= $1 }) {
            sorted.sort()
            var last = 0
            for i in sorted.indices.dropFirst() where sorted[i] != sorted[last] {
                last += 1
                sorted[last] = sorted[i]
            }
            sorted.removeLast(sorted.count - last - 1)
        }
        return sorted
    }

    /// Those of the ascending `keys` that are rows of `table` (a merge walk over its chunks):
    /// `keys` itself when all are, so that a batch delete of a long list of existing rows
    /// does not copy it (at 10M rows such a list is 40 MB of fresh memory).
    private static func present(_ keys: [Int64], in table: EntityTable) -> [Int64] {
        // Made at the first missing key, from the keys found before it.
        var found: [Int64]?
        var k = 0
        for chunk in table.chunks where k < keys.count {
            let pks = chunk.primaryKeysAlone
            var r = 0
            while k < keys.count, r < pks.count {
                if pks[r] == keys[k] { found?.append(keys[k]); k += 1; r += 1 }
                else if pks[r] < keys[k] { r += 1 }
                else {
                    if found == nil { found = Array(keys[..<k]) }
                    k += 1
                }
            }
        }
        // Keys past the last chunk are missing too.
        if k < keys.count, found == nil { found = Array(keys[..<k]) }
        return found ?? keys
    }

    /// Follows delete rules from `keys` of entity `root`: what to delete, what to nullify,
    /// or a `.deleteDenied` error.
    private func resolveDelete(root: Int, keys: [Int64], in version: StoreVersion) throws -> BatchDeleteRecord {
        if layouts[root].entity.relationships.isEmpty {
            // Nothing refers to an entity without relationships (every relationship has an
            // inverse), so the listed rows are all there is to delete.
            var record = BatchDeleteRecord()
            record.deletes[root] = KeyRanges(sortedKeys: keys)
            return record
        }
        var deleting: [Int: Set<Int64>] = [root: Set(keys)]
        var nullify: [Int: [Int: Set<Int64>]] = [:]
        var denied: [String] = []
        var worklist: [(Int, Set<Int64>)] = [(root, Set(keys))]
        while let (entity, keys) = worklist.popLast() {
            let layout = layouts[entity]
            let rules = validationSchema.entity(named: layout.entity.name)
            for relationship in layout.entity.relationships {
                guard let destination = layoutIndex[relationship.destination] else { continue }
                let rule = rules?.relationship(named: relationship.name)?.deleteRule ?? relationship.deleteRule
                var reached: Set<Int64> = []
                var nullifyProperty: Int?
                if relationship.isToMany {
                    // Rows of the destination whose inverse key points at a deleted row.
                    guard let inverse = layouts[destination].propertyIndex[relationship.inverse] else { continue }
                    reached = rows(of: version.tables[destination], property: inverse, pointingAt: keys)
                    nullifyProperty = inverse
                } else if let property = layout.propertyIndex[relationship.name] {
                    // Rows the deleted rows point at.
                    for key in keys {
                        if let location = version.tables[entity].locate(key),
                           case .int(let target) = version.tables[entity].value(property, at: location) { reached.insert(target) }
                    }
                    let inverseIsToOne = layouts[destination].propertyIndex[relationship.inverse]
                    nullifyProperty = inverseIsToOne
                    if rule != .cascade && rule != .deny, let inverse = inverseIsToOne {
                        reached = rows(of: version.tables[destination], property: inverse, pointingAt: keys)
                    }
                }
                reached.subtract(deleting[destination] ?? [])
                guard !reached.isEmpty else { continue }
                switch rule {
                case .deny:
                    denied.append("\(layout.entity.name).\(relationship.name) still refers to \(reached.count) \(relationship.destination) object(s) and its delete rule is deny")
                case .cascade:
                    deleting[destination, default: []].formUnion(reached)
                    worklist.append((destination, reached))
                case .nullify, .noAction:
                    if let property = nullifyProperty {
                        nullify[destination, default: [:]][property, default: []].formUnion(reached)
                    }
                }
            }
        }
        if !denied.isEmpty {
            throw StrataError(.deleteDenied, "The batch delete was refused: " + denied.joined(separator: "; ") + ". Nothing was written.", entity: layouts[root].entity.name)
        }
        var record = BatchDeleteRecord()
        for (entity, keys) in deleting { record.deletes[entity] = KeyRanges(sortedKeys: keys.sorted()) }
        for (entity, byProperty) in nullify {
            for (property, keys) in byProperty {
                let alive = keys.subtracting(deleting[entity] ?? [])
                if !alive.isEmpty { record.nullifications[entity, default: [:]][property] = KeyRanges(sortedKeys: alive.sorted()) }
            }
        }
        return record
    }

    /// Keys of the rows of `table` whose foreign key `property` is in `targets`.
    private func rows(of table: EntityTable, property: Int, pointingAt targets: Set<Int64>) -> Set<Int64> {
        let column = table.layout.properties[property].column
        var found = Set<Int64>()
        for chunk in table.chunks {
            guard case .int64(let values) = chunk.columns[column].values else { continue }
            let validity = chunk.columns[column].validity
            let keys = chunk.primaryKeys
            for row in values.indices where (validity?[row] ?? true) && targets.contains(values[row]) {
                found.insert(keys[row])
            }
        }
        return found
    }
}
