extension ManagedObject {
    /// The object a to-one relationship points to, or `nil`.
    ///
    /// - Throws: `.unknownKey` (also for a to-many key), `.objectNotFound`, `.misuse`.
    public func object(forKey key: String) throws(StrataError) -> ManagedObject? {
        let context = try requireContext()
        let (relationship, property) = try context.toOne(key, of: self)
        guard case .int(let key) = try currentValue(property) else { return nil }
        if let destination = context.store.layouts[layoutIndex].properties[property].destination {
            return context.object(layoutIndex: destination, primaryKey: key)
        }
        return context.object(with: ObjectID(storeID: objectID.storeID, entityName: relationship.destination, primaryKey: key))
    }

    /// Points a to-one relationship at `object` (or clears it with `nil`), keeping the
    /// inverse consistent: a to-many inverse follows automatically; a to-one inverse is set
    /// on `object` and cleared on the objects previously on either side.
    public func setObject(_ object: ManagedObject?, forKey key: String) throws(StrataError) {
        let context = try requireContext()
        let (relationship, property) = try context.toOne(key, of: self)
        if let object {
            if let unusable = object.unusable { throw unusable }
            guard object.contextReference === context else {
                throw StrataError(.misuse, "\(object) belongs to another context; get it in this one with object(with: \(object.objectID)).", entity: entityName, key: key)
            }
            guard object.entityName == relationship.destination else {
                throw StrataError(.typeMismatch, "\(entityName).\(key) points to \(relationship.destination), not to \(object.entityName).", entity: entityName, key: key)
            }
        }
        let destination = context.store.validationSchema.entity(named: relationship.destination)
        let inverseIsToOne = destination?.relationship(named: relationship.inverse)?.isToMany == false
        if inverseIsToOne {
            // One-to-one: both sides store a key; unhook the previous partners first.
            if let previous = try self.object(forKey: key), previous !== object {
                try previous.setPending(try context.propertyIndex(relationship.inverse, in: previous), .null)
            }
            if let object, let theirs = try object.object(forKey: relationship.inverse), theirs !== self {
                try theirs.setPending(try context.propertyIndex(key, in: theirs), .null)
            }
            if let object {
                try object.setPending(try context.propertyIndex(relationship.inverse, in: object), .int(primaryKey))
            }
        }
        try setPending(property, object.map { .int($0.primaryKey) } ?? .null)
    }

    /// The objects of a to-many relationship, ordered by primary key, including this
    /// context's unsaved changes.
    ///
    /// The objects are registered in the context; those not loaded yet come back as faults,
    /// which remember where their rows are, so reading one's values later loads it without a
    /// lookup (as a fetch's faults do) while the store has published nothing newer.
    ///
    /// - Throws: `.unknownKey` (also for a to-one key), `.misuse`; `.corrupted` when a chunk
    ///   of the store's snapshot fails its first read.
    /// - Complexity: O(log n + the relationship's size) plus the context's changed objects:
    ///   the relationship is the destination rows whose inverse foreign key points here, read
    ///   through the index the store keeps on that key.
    public func objects(forKey key: String) throws(StrataError) -> [ManagedObject] {
        let context = try requireContext()
        let (_, inverseProperty, destination) = try context.toMany(key, of: self)
        return try context.store.checkingDamage { () throws(StrataError) in
            try context.relatedObjects(of: self, destination: destination, inverseProperty: inverseProperty)
        }
    }

    /// Adds `object` to a to-many relationship (sets its inverse to-one to this object).
    public func add(_ object: ManagedObject, toKey key: String) throws(StrataError) {
        let context = try requireContext()
        let (relationship, _, _) = try context.toMany(key, of: self)
        try object.setObject(self, forKey: relationship.inverse)
    }

    /// Removes `object` from a to-many relationship (clears its inverse to-one).
    public func remove(_ object: ManagedObject, fromKey key: String) throws(StrataError) {
        let context = try requireContext()
        let (relationship, _, _) = try context.toMany(key, of: self)
        if try object.object(forKey: relationship.inverse) === self {
            try object.setObject(nil, forKey: relationship.inverse)
        }
    }
}

extension ObjectContext {
    func toOne(_ key: String, of object: ManagedObject) throws(StrataError) -> (Relationship, Int) {
        let layout = store.layouts[object.layoutIndex]
        guard let relationship = layout.entity.relationship(named: key), !relationship.isToMany else {
            if layout.entity.relationship(named: key) != nil {
                throw StrataError(.unknownKey, "\(layout.entity.name).\(key) is a to-many relationship; use objects(forKey:).", entity: layout.entity.name, key: key)
            }
            _ = try propertyIndex(key, in: object)
            throw StrataError(.unknownKey, "\(layout.entity.name).\(key) is an attribute, not a relationship.", entity: layout.entity.name, key: key)
        }
        return (relationship, layout.propertyIndex[key]!)
    }

    func toMany(_ key: String, of object: ManagedObject) throws(StrataError) -> (Relationship, Int, Int) {
        let layout = store.layouts[object.layoutIndex]
        guard let relationship = layout.entity.relationship(named: key), relationship.isToMany else {
            _ = try propertyIndex(key, in: object)
            throw StrataError(.unknownKey, "\(layout.entity.name).\(key) is not a to-many relationship.", entity: layout.entity.name, key: key)
        }
        let destination = try store.layout(named: relationship.destination)
        guard let inverse = destination.propertyIndex[relationship.inverse] else {
            throw StrataError(.invalidSchema, "\(relationship.destination).\(relationship.inverse), the inverse of \(layout.entity.name).\(key), is not a to-one relationship.", entity: layout.entity.name, key: key)
        }
        return (relationship, inverse, destination.index)
    }
}
