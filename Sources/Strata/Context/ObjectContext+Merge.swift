import Foundation

extension ObjectContext {
    /// Turns `object` back into a fault, discarding its unsaved changes (`mergeChanges:
    /// false`), or reloads its values from the store's newest version and keeps its unsaved
    /// changes on top (`mergeChanges: true`).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        object.checkQueue()
        guard object.contextReference === self, object.lifecycle == .persisted || object.lifecycle == .deleted else { return }
        if !mergeChanges {
            object.pending = [:]
            object.forgetRow()
            if object.lifecycle == .deleted { object.lifecycle = .persisted }
            changed[object.registryKey] = nil
            object.typedModelDidChange()
            return
        }
        let found: (values: RowValues, version: UInt64)?
        do {
            found = try readRow(of: object)
        } catch {
            // A chunk of the store failed its first decode: the object becomes a fault (its
            // unsaved changes kept), so reading it throws the damage rather than stale or
            // placeholder values.
            object.forgetRow()
            object.typedModelDidChange()
            return
        }
        guard let row = found else {
            forgetDeletedInStore(object)
            return
        }
        object.committed = row.values
        object.committedVersion = row.version
        for (property, value) in object.pending where row.values[property] == value { object.pending[property] = nil }
        noteChanged(object)
        object.typedModelDidChange()
    }

    /// Brings this context up to date with another context's save: updated objects are
    /// reloaded (keeping this context's unsaved changes on top), deleted ones are dropped.
    public func mergeChanges(from save: ContextDidSave) {
        merge(updated: ObjectIDSet(save.updated), deleted: ObjectIDSet(save.deleted))
    }

    /// Brings this context up to date with any committed transaction (saves and batch
    /// requests alike).
    public func mergeChanges(from change: StoreChange) {
        merge(updated: change.updatedIDs, deleted: change.deletedIDs)
    }

    /// Core Data's `mergeChanges(fromRemoteContextSave:into:)`: tells each context, on its
    /// queue, about objects changed outside it (by a batch request, for example).
    ///
    /// Pass a batch result's ``BatchResult/objectIDSet`` as it is: for a million rows it is a
    /// few key ranges, and the merge looks up each context's registered objects in them (or
    /// the ranges' keys in the context, whichever is fewer) without making an `ObjectID`.
    ///
    /// For example:
    /// ```swift
    /// let result = try store.execute(checkAll)      // resultType = .objectIDs
    /// ObjectContext.mergeChanges(updated: result.objectIDSet ?? [], into: [viewContext])
    /// ```
    /// - Complexity: O(min(registered objects, IDs)) per context (and O(log runs) a lookup).
    public static func mergeChanges(updated: ObjectIDSet = ObjectIDSet(), deleted: ObjectIDSet = ObjectIDSet(),
                                    into contexts: [ObjectContext]) {
        for context in contexts {
            context.performAndWait { context.merge(updated: updated, deleted: deleted) }
        }
    }

    /// The same, for IDs held in `Set`s (kept for callers of the first release; a batch
    /// result's ``BatchResult/objectIDSet`` costs less).
    @_disfavoredOverload
    public static func mergeChanges(updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [],
                                    into contexts: [ObjectContext]) {
        mergeChanges(updated: ObjectIDSet(updated), deleted: ObjectIDSet(deleted), into: contexts)
    }

    /// When `true`, every transaction committed by others (contexts or batch requests) is
    /// merged into this context on its queue, as ``mergeChanges(from:)-(StoreChange)`` does.
    /// Default `false`.
    public var automaticallyMergesChangesFromStore: Bool {
        get { storeObservation != nil }
        set {
            guard newValue != (storeObservation != nil) else { return }
            guard newValue else { storeObservation = nil; return }
            let me = ObjectIdentifier(self)
            storeObservation = store.observeChanges { [weak self] change in
                guard let self, change.originContext != me else { return }
                self.schedule { self.mergeChanges(from: change) }
            }
        }
    }

    /// Calls `handler` after each of this context's saves, on the context's queue.
    public func observeSaves(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> ObservationToken {
        let id = UUID()
        performAndWait { saveObservers[id] = handler }
        return ObservationToken { [weak self] in
            guard let context = self else { return }
            context.schedule { context.saveObservers[id] = nil }
        }
    }

    /// Discards every unsaved change: inserted objects are dropped, deleted ones restored,
    /// updated ones get their saved values back.
    public func rollback() {
        for object in changed.values {
            switch object.lifecycle {
            case .inserted:
                forget(object)
            case .deleted where object.wasInserted:
                forget(object)
            case .deleted, .persisted:
                object.lifecycle = .persisted
                object.pending = [:]
            case .invalid:
                break
            }
        }
        let rolledBack = changed.keys
        changed.removeAll()
        releaseUnused(rolledBack)
    }

    /// Forgets every object: registered objects become unusable (accessing them throws
    /// `.misuse`) and unsaved changes are lost.
    public func reset() {
        registry.forEachSlot { _, slot in slot?.lifecycle = .invalid }
        for object in changed.values { object.lifecycle = .invalid }
        registry.removeAll()
        foreignRegistry = [:]
        changed.removeAll()
    }

    func merge(updated: ObjectIDSet, deleted: ObjectIDSet) {
        for object in registeredObjects(in: updated) where object.hasCommittedValues {
            refresh(object, mergeChanges: true)
        }
        for object in registeredObjects(in: deleted) { forgetDeletedInStore(object) }
    }

    /// The objects of `ids` registered in this context: either each ID (or each key of a set
    /// of key ranges) looked up in the registry, or each registered object looked up in
    /// `ids`, whichever is fewer.
    private func registeredObjects(in ids: ObjectIDSet) -> [ManagedObject] {
        guard !ids.isEmpty else { return [] }
        guard let (storeID, ranges) = ids.keyRanges, storeID == store.storeID else {
            guard registry.count < ids.count else { return ids.compactMap(registered) }
            // More IDs than registered objects (a large save elsewhere): look the registered
            // ones up in the set, so rows this context never loaded cost nothing.
            var found: [ManagedObject] = []
            registry.forEachSlot { _, slot in
                guard slot != nil, !isKnownUniquelyReferenced(&slot), let object = slot,
                      ids.contains(object.objectID) else { return }
                found.append(object)
            }
            return found
        }
        var found: [ManagedObject] = []
        let entities = ranges.compactMap { range in store.layoutIndex[range.entityName].map { ($0, range.keys) } }
        if registry.count < ids.count {
            registry.forEachSlot { key, slot in
                // An object only the registry holds is a fresh fault: nothing to merge.
                guard slot != nil, !isKnownUniquelyReferenced(&slot),
                      let keys = entities.first(where: { $0.0 == key.entity })?.1, keys.contains(key.primaryKey),
                      let object = slot else { return }
                found.append(object)
            }
            return found
        }
        for (entity, keys) in entities {
            for run in keys.runs {
                for key in run.first..<(run.first + run.count) {
                    let object = registry.withSlot(RegistryKey(entity: entity, primaryKey: key), create: false) { slot in
                        isKnownUniquelyReferenced(&slot) ? nil : slot
                    }
                    if let object { found.append(object) }
                }
            }
        }
        return found
    }

    func forget(_ object: ManagedObject) {
        object.lifecycle = .invalid
        object.pending = [:]
        changed[object.registryKey] = nil
        registry[object.registryKey] = nil
        object.typedModelDidChange()
    }
}
