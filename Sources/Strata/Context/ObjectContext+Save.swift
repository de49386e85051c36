extension ObjectContext {
    /// Saves every insert, update and delete as one atomic, durable transaction.
    ///
    /// In order: delete rules are applied (cascade deletes further, nullify clears inverse
    /// keys, deny refuses), every inserted and updated object is validated (all broken rules
    /// are reported together), rows changed in the store since this context read them are
    /// resolved by ``mergePolicy``, then the transaction is committed. Nothing is written
    /// when any step fails.
    ///
    /// A save that would leave two rows of an entity sharing the values of one of its
    /// ``Entity/uniquenessConstraints`` throws `.constraintConflict`, unless the merge policy
    /// resolves it: under `.objectTrump` an inserted object whose constrained values a stored
    /// row already has updates that row instead (an upsert) and takes over its ``ObjectID``;
    /// under `.storeTrump` it takes over the row and the stored values are kept. See
    /// ``MergePolicy``.
    ///
    /// What the outcome promises (under the default `Durability.always`):
    /// - **It returned:** the transaction is on stable storage and in every reopened store,
    ///   even when the store fails right after (a failed segment rotation, another save's
    ///   failed sync).
    /// - **It threw:** the transaction is not in the store, and no crash — of the process,
    ///   of the power, or both in a row — makes it appear later. Retrying it cannot save it
    ///   twice. (The one exception: the log write or sync failed *and* cutting the failed
    ///   frames back off failed too; see `docs/FORMAT.md`, section 8.)
    ///
    /// - Throws: first of all, the error of a typed-model insert or property change made
    ///   since the last save that could not be carried out (those calls cannot throw; see
    ///   "Typed models"); `StrataError` `.validation`, `.deleteDenied`, `.conflict`,
    ///   `.constraintConflict` (see ``UniquenessConflicts``);
    ///   `StorageError` (`diskFull`, `io`) when this save's log write or sync fails; then
    ///   `StrataError` `.readOnly` for every later save, since the store stays read-only
    ///   until reopened; `StrataError` `.corrupted` when a chunk of the store's snapshot
    ///   failed its first read (an encrypted chunk that does not authenticate), now or
    ///   before: nothing is written.
    public func save() throws {
        guard isOnQueue else {
            throw StrataError(.misuse, "save() was called off the context's queue; call it inside perform { } or performAndWait { }.")
        }
        if let error = deferredModelError.take() { throw error }
        guard hasChanges else { return }
        // Every step reads the store (delete rules, validation, conflicts, uniqueness): if a
        // chunk failed its first decode meanwhile, its damage is thrown instead of what a
        // step concluded from placeholder columns (the commit logs nothing then).
        try store.checkingDamageOfAnyError { try saveChanges() }
    }

    private func saveChanges() throws {
        // The changed objects are listed once (in key order) and the list is passed to each
        // step; it is made again only after a step that changes which objects are changed
        // (delete rules that reached further objects, a conflict's resolution).
        var objects = changed.values
        if try applyDeleteRules(objects) { objects = changed.values }
        try validateChanges(objects)
        var attempts = 0
        while true {
            attempts += 1
            let changes = try buildChangeset(objects)
            do {
                let (version, change) = try store.commit(changes, origin: ObjectIdentifier(self), author: transactionAuthor ?? name)
                // The store's change lists exactly the IDs of the inserted objects (each one
                // is an insert of the changeset), so their set is not built a second time.
                finishSave(&objects, lsn: version.lsn, inserted: change.insertedIDs)
                return
            } catch let conflicts as StoreConflicts {
                // Each failed attempt means another transaction committed meanwhile, so the
                // store makes progress; the cap only guards against a resolution that does not
                // converge. (5 was too few: 4 contexts updating one row lost regularly.)
                guard mergePolicy != .error, attempts < 100 else { throw conflictError(conflicts) }
                try resolve(conflicts)
            } catch let error as StrataError where error.code == .constraintConflict {
                guard attempts < 100, let conflicts = error.cause as? UniquenessConflicts, try resolveUniqueness(conflicts) else { throw error }
                // Merged into stored rows with nothing left to write (say, under .storeTrump).
                if !hasChanges { return }
            }
            objects = changed.values
        }
    }

    // MARK: Delete rules

    /// Applies the delete rules of the deleted objects among `objects` (the changed ones).
    /// Returns whether there were any: only then can the rules have changed more objects.
    private func applyDeleteRules(_ objects: [ManagedObject]) throws -> Bool {
        var worklist = objects.filter { $0.lifecycle == .deleted }
        guard !worklist.isEmpty else { return false }
        var seen = Set(worklist.map(\.objectID))
        var denied: [String] = []
        while let object = worklist.popLast() {
            let entity = store.layouts[object.layoutIndex].entity
            for relationship in entity.relationships {
                let rule = store.validationSchema.entity(named: entity.name)?.relationship(named: relationship.name)?.deleteRule ?? relationship.deleteRule
                let related: [ManagedObject]
                object.lifecycle = .persisted
                defer { object.lifecycle = .deleted }
                if relationship.isToMany {
                    related = try object.objects(forKey: relationship.name)
                } else {
                    related = try object.object(forKey: relationship.name).map { [$0] } ?? []
                }
                let alive = related.filter { $0.lifecycle != .deleted }
                switch rule {
                case .deny:
                    if !alive.isEmpty {
                        denied.append("\(object) cannot be deleted: its \(relationship.name) relationship holds \(alive.count) object(s) and its delete rule is deny")
                    }
                case .cascade:
                    for child in alive where !seen.contains(child.objectID) {
                        seen.insert(child.objectID)
                        delete(child)
                        worklist.append(child)
                    }
                case .nullify:
                    let inverseIsToOne = store.validationSchema.entity(named: relationship.destination)?
                        .relationship(named: relationship.inverse)?.isToMany == false
                    if relationship.isToMany || inverseIsToOne {
                        for other in alive {
                            try other.setPending(try propertyIndex(relationship.inverse, in: other), .null)
                        }
                    }
                case .noAction:
                    break
                }
            }
        }
        if !denied.isEmpty {
            throw StrataError(.deleteDenied, denied.joined(separator: "; ") + ". Remove the related objects first, or change the delete rule; nothing was saved.")
        }
        return true
    }

    // MARK: Validation

    private func validateChanges(_ objects: [ManagedObject]) throws {
        var violations: [ValidationViolation] = []
        // Per layout index, made on its first object: how to validate its objects (nil when
        // its entity has no validation entity). An array of references, so an object costs
        // no hash and no copy of the `Entity` (a copy retains each of its fields).
        var plans = [ValidationPlan?](repeating: nil, count: store.layouts.count)
        var planned = [Bool](repeating: false, count: store.layouts.count)
        for object in objects where object.lifecycle == .inserted || (object.lifecycle == .persisted && !object.pending.isEmpty) {
            if !planned[object.layoutIndex] {
                planned[object.layoutIndex] = true
                plans[object.layoutIndex] = ValidationPlan(layout: store.layouts[object.layoutIndex], schema: store.validationSchema)
            }
            guard let plan = plans[object.layoutIndex] else { continue }
            // An entity whose only rules are required attributes: an inserted object whose
            // row has a value for each passes, read in place. One without goes on below,
            // which names every broken rule.
            if let required = plan.requiredProperties, object.pending.isEmpty, object.hasCommittedValues,
               !object.committedHasNull(at: required) {
                continue
            }
            // An inserted object's values are all in its row (see ManagedObject.committed).
            let row = object.pending.isEmpty ? object.committed : nil
            let found = try plan.entity.violations(
                valueAt: { attribute in
                    guard let property = plan.properties[attribute] else { return .null }
                    if let row { return row[property] }
                    return try object.currentValue(property)
                },
                relationshipCount: { index in
                    let relationship = plan.entity.relationships[index]
                    return relationship.isToMany
                        ? try object.objects(forKey: relationship.name).count
                        : (try object.object(forKey: relationship.name) == nil ? 0 : 1)
                },
                // Formatting the ID's URI is costly: only done when a rule is broken.
                object: object.objectID.description)
            if !found.isEmpty { violations += found }
        }
        if !violations.isEmpty { throw ValidationFailure(violations).error }
    }

    // MARK: Changeset

    func buildChangeset(_ objects: [ManagedObject]) throws -> Changeset {
        // Per layout index, in an array: an object costs no hash of the changeset's dictionary.
        var entities = [Changeset.EntityChanges](repeating: .init(), count: store.layouts.count)
        // Each entity's inserted rows, as keys and values side by side, reserved at their
        // number first: grown by doubling, a million rows were copied about twice over, into
        // fresh pages. Plain arrays while they fill (an append is a store, not a switch).
        var insertedKeys = [[Int64]](repeating: [], count: store.layouts.count)
        var insertedValues = [[[AttributeValue]]](repeating: [], count: store.layouts.count)
        do {
            var counts = [Int](repeating: 0, count: store.layouts.count)
            for object in objects where object.lifecycle == .inserted { counts[object.layoutIndex] += 1 }
            for (index, count) in counts.enumerated() where count > 0 {
                insertedKeys[index].reserveCapacity(count)
                insertedValues[index].reserveCapacity(count)
            }
        }
        for object in objects {
            let key = object.primaryKey
            switch object.lifecycle {
            case .inserted:
                let values: [AttributeValue]
                if object.pending.isEmpty, let row = object.committed {
                    values = row.values
                } else {
                    let count = store.layouts[object.layoutIndex].properties.count
                    values = try (0..<count).map { try object.currentValue($0) }
                }
                insertedKeys[object.layoutIndex].append(key)
                insertedValues[object.layoutIndex].append(values)
            case .persisted where !object.pending.isEmpty:
                try object.fireFault()
                entities[object.layoutIndex].updates.append(
                    .init(primaryKey: key, expectedVersion: object.committedVersion,
                          values: object.pending.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
            case .deleted where !object.wasInserted:
                if !object.hasCommittedValues, let row = try readRow(of: object) {
                    object.committed = row.values
                    object.committedVersion = row.version
                }
                guard object.hasCommittedValues else { continue } // already gone from the store
                entities[object.layoutIndex].deletes.append(
                    .init(primaryKey: key, expectedVersion: object.committedVersion))
            default:
                continue
            }
        }
        for index in entities.indices where !insertedKeys[index].isEmpty {
            entities[index].inserts = Changeset.Inserts(keys: insertedKeys[index], values: insertedValues[index])
        }
        var changes = Changeset()
        for (index, entity) in entities.enumerated() where !entity.isEmpty { changes.entities[index] = entity }
        return changes
    }

    /// Makes the saved changes of `objects` (the changed objects) committed, then empties
    /// `objects`, so that the objects nothing else holds can leave the registry.
    private func finishSave(_ objects: inout [ManagedObject], lsn: UInt64, inserted: ObjectIDSet) {
        var updated = Set<ObjectID>(), deleted = Set<ObjectID>()
        for object in objects {
            switch object.lifecycle {
            case .inserted:
                if object.hasCommittedValues {
                    // The defaults set at insert, overwritten by the pending values.
                    for (property, value) in object.pending { object.setCommittedValue(property, value) }
                } else {
                    object.committed = (try? (0..<store.layouts[object.layoutIndex].properties.count).map { try object.currentValue($0) }).map(RowValues.init)
                }
                object.pending = [:]
                object.committedVersion = lsn
                object.lifecycle = .persisted
            case .persisted:
                updated.insert(object.objectID)
                if object.hasCommittedValues { for (property, value) in object.pending { object.setCommittedValue(property, value) } }
                object.pending = [:]
                object.committedVersion = lsn
            case .deleted:
                if !object.wasInserted { deleted.insert(object.objectID) }
                object.lifecycle = .invalid
                registry[object.registryKey] = nil
            case .invalid:
                break
            }
        }
        // The list lets go of its objects one by one, each dropped from the registry when
        // only the registry then holds it: no list of their keys is made (16 bytes an object).
        changed.removeAll()
        releaseUnused(taking: &objects)
        let note = ContextDidSave(lsn: lsn, insertedIDs: inserted, updated: updated, deleted: deleted)
        for handler in saveObservers.values { handler(note) }
    }

    // MARK: Conflicts

    private func conflictError(_ conflicts: StoreConflicts) -> StrataError {
        let head = store.headVersion
        let parts = conflicts.conflicts.map { conflict -> String in
            let object = registered(conflict.objectID)
            let mine = object.map { o in o.pending.keys.map { store.layouts[o.layoutIndex].properties[$0].name }.sorted() } ?? []
            guard let current = conflict.currentVersion else {
                return "\(conflict.objectID.entityName) \(conflict.objectID.primaryKey) was deleted in the store" + (mine.isEmpty ? "" : " (this context changed: \(mine.joined(separator: ", ")))")
            }
            var theirs: [String] = []
            if let object, let base = object.committed, let row = try? readRow(of: object, in: head) {
                let names = store.layouts[object.layoutIndex].properties.map(\.name)
                theirs = names.indices.filter { base[$0] != row.values[$0] }.map { names[$0] }
            }
            return "\(conflict.objectID.entityName) \(conflict.objectID.primaryKey) changed in the store (version \(current); keys: \(theirs.isEmpty ? "none" : theirs.joined(separator: ", ")); this context changed: \(mine.isEmpty ? "nothing (it deletes it)" : mine.joined(separator: ", ")))"
        }
        var error = StrataError(.conflict, "Save conflict: " + parts.joined(separator: "; ") + ". Nothing was saved. Refresh these objects, or set the context's mergePolicy.")
        error.cause = conflicts
        return error
    }

    private func resolve(_ conflicts: StoreConflicts) throws {
        // The head, not the published version: the conflict was found against the head, and
        // the commit that caused it may still be waiting for its fsync (unpublished).
        let head = store.headVersion
        for conflict in conflicts.conflicts {
            guard let object = registered(conflict.objectID) else { continue }
            guard let row = try readRow(of: object, in: head) else {
                // Deleted in the store: the store's delete wins under every policy but .error.
                object.lifecycle = .invalid
                object.pending = [:]
                changed[object.registryKey] = nil
                registry[object.registryKey] = nil
                continue
            }
            let base = object.committed ?? row.values
            switch mergePolicy {
            case .error:
                break
            case .storeTrump:
                for (property, _) in object.pending where base[property] != row.values[property] {
                    object.pending[property] = nil
                }
            case .objectTrump:
                break
            case .overwrite:
                for property in store.layouts[object.layoutIndex].properties.indices where object.pending[property] == nil && base[property] != row.values[property] {
                    object.pending[property] = base[property]
                }
            case .rollback:
                object.pending = [:]
                if object.lifecycle == .deleted { object.lifecycle = .persisted }
            }
            object.committed = row.values
            object.committedVersion = row.version
            noteChanged(object)
        }
    }
}

extension StoreConflicts: CustomStringConvertible {
    var description: String { "\(conflicts.count) conflicting object(s)" }
}

/// What validating the objects of one entity needs, made once per save: its validation
/// entity and, for each of the entity's attributes, the stored property that holds it (nil:
/// not stored, so it reads as null).
private final class ValidationPlan {
    let entity: Entity
    let properties: [Int?]
    /// When requiredness is the entity's only rule (no attribute has validation rules, no
    /// relationship is required) and every required attribute is stored: the stored
    /// properties that must not be null. An object whose row has a value in each is valid.
    /// `nil` otherwise.
    let requiredProperties: [Int]?

    /// `nil` when the validation schema has no entity of `layout`'s name.
    init?(layout: EntityLayout, schema: Schema) {
        guard let entity = schema.entity(named: layout.entity.name) else { return nil }
        self.entity = entity
        let properties = entity.attributes.map { attribute -> Int? in
            guard let index = layout.propertyIndex[attribute.name], layout.properties[index].type != nil else { return nil }
            return index
        }
        self.properties = properties
        var required: [Int]? = []
        for (index, attribute) in entity.attributes.enumerated() {
            if !attribute.validationRules.isEmpty { required = nil; break }
            guard !attribute.isOptional else { continue }
            guard let property = properties[index] else { required = nil; break }
            required?.append(property)
        }
        if entity.relationships.contains(where: { !$0.isOptional }) { required = nil }
        requiredProperties = required
    }
}
