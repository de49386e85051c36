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

    func toOne(forKey key: String) -> (any PredicateSubject)? {
        (try? object.object(forKey: key))?.map { ObjectSubject(object: $0) } ?? nil
    }

    func toMany(forKey key: String) -> [any PredicateSubject] {
        ((try? object.objects(forKey: key)) ?? []).map { ObjectSubject(object: $0) }
    }
}
