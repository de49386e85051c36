/// A row of a pinned store version seen as a ``PredicateSubject``: attributes from its
/// columns, to-one relationships by foreign key, to-many ones by scanning the inverse key.
struct RowSubject: PredicateSubject {
    let version: StoreVersion
    let table: Int
    let location: (chunk: Int, row: Int)

    func value(forKey key: String) -> AttributeValue {
        let layout = version.tables[table].layout
        guard let property = layout.propertyIndex[key] else { return .null }
        return version.tables[table].value(property, at: location)
    }

    func toOne(forKey key: String) -> (any PredicateSubject)? {
        let layout = version.tables[table].layout
        guard let property = layout.propertyIndex[key], let destination = layout.properties[property].destination,
              case .int(let target) = version.tables[table].value(property, at: location),
              let found = version.tables[destination].locate(target) else { return nil }
        return RowSubject(version: version, table: destination, location: found)
    }

    /// - Complexity: O(rows of the destination entity).
    func toMany(forKey key: String) -> [any PredicateSubject] {
        let layout = version.tables[table].layout
        guard let relationship = layout.entity.relationship(named: key), relationship.isToMany,
              let destination = version.tables.firstIndex(where: { $0.layout.entity.name == relationship.destination }),
              let inverse = version.tables[destination].layout.propertyIndex[relationship.inverse] else { return [] }
        let me = version.tables[table].chunks[location.chunk].primaryKeys[location.row]
        let target = version.tables[destination]
        let column = target.layout.properties[inverse].column
        var result: [any PredicateSubject] = []
        for (c, chunk) in target.chunks.enumerated() {
            guard case .int64(let keys) = chunk.columns[column].values else { continue }
            let validity = chunk.columns[column].validity
            for row in keys.indices where keys[row] == me && (validity?[row] ?? true) {
                result.append(RowSubject(version: version, table: destination, location: (c, row)))
            }
        }
        return result
    }
}

/// A managed object (with its unsaved changes) seen as a ``PredicateSubject``.
struct ObjectSubject: PredicateSubject {
    let object: ManagedObject

    func value(forKey key: String) -> AttributeValue { (try? object.value(forKey: key)) ?? .null }

    /// The related object, or `nil` when there is none or it was deleted in the context (as
    /// for to-many relationships, which leave deleted objects out).
    func toOne(forKey key: String) -> (any PredicateSubject)? {
        guard let related = (try? object.object(forKey: key)) ?? nil, related.lifecycle != .deleted else { return nil }
        return ObjectSubject(object: related)
    }

    func toMany(forKey key: String) -> [any PredicateSubject] {
        ((try? object.objects(forKey: key)) ?? []).map { ObjectSubject(object: $0) }
    }
}

/// A context's unsaved objects by entity (layout index) and primary key, for evaluating
/// store rows as that context sees them.
struct PendingObjects {
    let byEntity: [Int: [Int64: ManagedObject]]

    init(_ changed: some Sequence<ManagedObject>) {
        var byEntity: [Int: [Int64: ManagedObject]] = [:]
        for object in changed { byEntity[object.layoutIndex, default: [:]][object.primaryKey] = object }
        self.byEntity = byEntity
    }

    func object(entity: Int, key: Int64) -> ManagedObject? { byEntity[entity]?[key] }
}

/// A store row the context did not change, seen through the context's unsaved changes: its
/// own values come from the row, but a relationship leads to the context's version of a
/// changed related object (a deleted one is gone), and a to-many relationship gains and
/// loses the objects whose inverse key the context changed.
struct PendingRowSubject: PredicateSubject {
    let row: RowSubject
    let pending: PendingObjects

    func value(forKey key: String) -> AttributeValue { row.value(forKey: key) }

    func toOne(forKey key: String) -> (any PredicateSubject)? {
        let version = row.version, layout = version.tables[row.table].layout
        guard let property = layout.propertyIndex[key], let destination = layout.properties[property].destination,
              case .int(let target) = version.tables[row.table].value(property, at: row.location) else { return nil }
        if let object = pending.object(entity: destination, key: target) {
            return object.lifecycle == .deleted ? nil : ObjectSubject(object: object)
        }
        guard let found = version.tables[destination].locate(target) else { return nil }
        return PendingRowSubject(row: RowSubject(version: version, table: destination, location: found), pending: pending)
    }

    /// - Complexity: O(rows of the destination entity + its changed objects).
    func toMany(forKey key: String) -> [any PredicateSubject] {
        let version = row.version, layout = version.tables[row.table].layout
        guard let relationship = layout.entity.relationship(named: key), relationship.isToMany,
              let destination = version.tables.firstIndex(where: { $0.layout.entity.name == relationship.destination }),
              let inverse = version.tables[destination].layout.propertyIndex[relationship.inverse] else { return [] }
        let me = version.tables[row.table].chunks[row.location.chunk].primaryKeys[row.location.row]
        let changed = pending.byEntity[destination] ?? [:]
        var result: [any PredicateSubject] = row.toMany(forKey: key).compactMap { subject in
            guard let related = subject as? RowSubject else { return nil }
            let key = version.tables[destination].chunks[related.location.chunk].primaryKeys[related.location.row]
            return changed[key] == nil ? PendingRowSubject(row: related, pending: pending) : nil
        }
        for object in changed.values where object.lifecycle != .deleted {
            if (try? object.currentValue(inverse)) == .int(me) { result.append(ObjectSubject(object: object)) }
        }
        return result
    }
}
