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
            object.committed = nil
            object.committedVersion = 0
            object.faultHint = nil
            if object.lifecycle == .deleted { object.lifecycle = .persisted }
            changed[object.registryKey] = nil
            object.typedModelDidChange()
            return
        }
        guard let row = readRow(of: object) else {
            forget(object)
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
        merge(updated: save.updated, deleted: save.deleted)
    }

    /// Brings this context up to date with any committed transaction (saves and batch
    /// requests alike).
    public func mergeChanges(from change: StoreChange) {
        merge(updated: change.updated, deleted: change.deleted)
    }

    /// Core Data's `mergeChanges(fromRemoteContextSave:into:)`: tells each context, on its
    /// queue, about objects changed outside it (by a batch request, for example).
    public static func mergeChanges(updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [],
                                    into contexts: [ObjectContext]) {
        for context in contexts {
            context.performAndWait { context.merge(updated: updated, deleted: deleted) }
        }
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

    func merge(updated: Set<ObjectID>, deleted: Set<ObjectID>) {
        for id in updated {
            guard let object = registered(id), object.committed != nil else { continue }
            refresh(object, mergeChanges: true)
        }
        for id in deleted {
            guard let object = registered(id) else { continue }
            forget(object)
        }
    }

    private func forget(_ object: ManagedObject) {
        object.lifecycle = .invalid
        object.pending = [:]
        changed[object.registryKey] = nil
        registry[object.registryKey] = nil
        object.typedModelDidChange()
    }
}
