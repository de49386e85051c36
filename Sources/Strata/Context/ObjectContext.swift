import Foundation
import Synchronization

/// A scratchpad of objects bound to a store, used on one queue.
///
/// A context registers each object once per ID (uniquing), hands out faults, tracks
/// inserted, updated and deleted objects, and saves them as one atomic transaction. Its
/// objects must be used only on its queue: inside ``perform(_:)`` or ``performAndWait(_:)``
/// for a private-queue context, on the main thread for a main-queue one. Object IDs — not
/// objects — cross between contexts.
///
/// For example:
/// ```swift
/// let context = ObjectContext(store: store)
/// try await context.perform {
///     let item = try context.insert("TodoItem")
///     try item.setValue("Write docs", forKey: "name")
///     try context.save()
/// }
/// ```
///
/// `@unchecked Sendable`: the context may be referenced from any thread, but every mutable
/// field is touched only on `queue` (``perform(_:)``/``performAndWait(_:)`` get there; debug
/// builds check it on each object access).
public final class ObjectContext: @unchecked Sendable {
    /// Which queue a context's work runs on.
    public enum ConcurrencyType: Sendable {
        /// A private serial queue of its own.
        case privateQueue
        /// The main queue (for UI code).
        case mainQueue
    }

    /// The store it reads from and saves to.
    public let store: PersistentStore
    /// Its queue kind.
    public let concurrencyType: ConcurrencyType
    /// What a save does on a conflict. Default ``MergePolicy/error``.
    public var mergePolicy: MergePolicy = .error
    /// A name for debugging and messages; persistent history records it as the author of
    /// this context's saves unless ``transactionAuthor`` is set.
    public var name: String?
    /// The author persistent history records for this context's saves (Core Data's
    /// `transactionAuthor`); `nil` records ``name``.
    public var transactionAuthor: String?

    let queue: DispatchQueue
    /// The thread running a block this context started on its queue (see ``QueueThread``).
    let queueThread = QueueThread()
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    // `registry` and `changed` skip the runtime exclusivity checks: they are touched only on
    // the context's queue, and no inout access to them spans a call that could reach them
    // again (a released object does not touch them on deinit).
    /// Registered objects by entity layout index and primary key (see ``RegistryKey``).
    ///
    /// The registry holds its objects strongly, but an object nothing else holds counts as
    /// gone: `registeredObjects` leaves it out, a lookup hands it out again as a fresh fault
    /// (so it reads the store anew, as a new object would), and a sweep drops such objects
    /// whenever the registry has doubled since the last one. This costs a reference count
    /// check instead of a weak reference per object (a side table allocated, loaded and
    /// freed), and objects are released on the context's queue. Reading the count is safe
    /// from this queue: an object held by the registry alone can be reached only through it.
    @exclusivity(unchecked) var registry = ObjectMap()
    /// The registry's size that triggers the next sweep (see ``sweepRegistryIfDue()``).
    var registrySweepThreshold = ObjectContext.minimumSweepThreshold
    /// The registry keys given to IDs of another store or of an entity the store does not
    /// have; their objects are unusable, and their keys' negative entity numbers keep them
    /// apart from every real object.
    var foreignRegistry: [ObjectID: RegistryKey] = [:]
    @exclusivity(unchecked) var changed = ObjectMap()
    /// The last request shape a key probe resolved (see ``KeyProbe/Shape``): repeated point
    /// lookups by the same key skip resolving the entity and the attribute again. Only read
    /// and written on the context's queue, by one probe at a time (no dynamic exclusivity
    /// check per lookup).
    @exclusivity(unchecked) var probeShape: KeyProbe.Shape?
    /// Each entity's property-name index, copied out of the store's layouts once so that a
    /// lookup by key does not go through the whole layout.
    let propertyIndexes: [[String: Int]]
    /// Each entity's stored property names in layout order, for entities with few of them:
    /// comparing a short key with a handful of names beats hashing it.
    let propertyNames: [[String]?]
    /// The number and LSN of the newest version a fetch of this context gave fault hints
    /// for: a hint is good while its number is this one and the store's newest version is
    /// this LSN (see ``hintEpochNumber(for:)``). Only touched on the context's queue.
    @exclusivity(unchecked) var hintEpoch: (number: UInt32, lsn: UInt64) = (0, 0)
    /// Ended by `deinit`; the objects of this context check it (see ``ContextLifetime``).
    let lifetime: ContextLifetime
    var saveObservers: [UUID: @Sendable (ContextDidSave) -> Void] = [:]
    /// The first error of a typed-model operation that cannot throw (an insert, a property
    /// setter): the next ``save()`` throws it (see `ObjectContext+Models.swift`).
    var deferredModelError: StrataError?
    /// The entity layout index of each `@Model` class used here, checked once against the
    /// store's layout (see `ObjectContext+Models.swift`).
    var modelLayoutIndexes: [ObjectIdentifier: Int] = [:]
    /// The last entry looked up in ``modelLayoutIndexes``: inserts and fetches of one class in
    /// a row skip the hash.
    var lastModelLayout: (type: ObjectIdentifier, index: Int)?
    /// How observers of this context's models register (see ``ModelObservation``).
    public var modelObservation: ModelObservation
    var storeObservation: ObservationToken?

    /// Creates a context on `store`.
    public init(store: PersistentStore, concurrencyType: ConcurrencyType = .privateQueue, name: String? = nil) {
        self.store = store
        self.concurrencyType = concurrencyType
        self.name = name
        modelObservation = concurrencyType == .mainQueue ? .eachModel : .sharedByContext
        lifetime = ContextLifetime(idEntities: store.idEntities, columns: store.layouts.map(\.columnAccess))
        propertyIndexes = store.layouts.map(\.propertyIndex)
        propertyNames = store.layouts.map { $0.properties.count <= 8 ? $0.properties.map(\.name) : nil }
        queue = concurrencyType == .mainQueue ? .main : DispatchQueue(label: "strata.context.\(name ?? "private")")
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        lifetime.bind(self)
    }

    deinit { lifetime.end() }

    // MARK: Queues

    /// Whether the caller is on this context's queue.
    ///
    /// For a main-queue context that is the main thread, or a block running on the main
    /// queue: on Linux, `DispatchQueue.main.sync` from another thread may run the block on
    /// that thread (holding the main queue, so still serialized with all main-queue work).
    public var isOnQueue: Bool {
        if DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) { return true }
        return concurrencyType == .mainQueue && Thread.isMainThread
    }

    /// ``isOnQueue``, answered with a load and a compare inside a block this context started
    /// (``performAndWait(_:)``, ``perform(_:)``, ``schedule(_:)``, a model actor's job), and
    /// by asking the queue elsewhere.
    var isOnQueueQuickly: Bool { queueThread.isCurrent || isOnQueue }

    /// Runs `body` on the context's queue and waits for it (inline when already there).
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        if isOnQueue { return try body() }
        return try queue.sync { try queueThread.run(body) }
    }

    /// Runs `body` on the context's queue and returns its result asynchronously.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let thread = queueThread
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try thread.run(body) }) }
        }
    }

    /// Runs `body` on the context's queue without waiting (Core Data's `perform(_:)`).
    public func schedule(_ body: @escaping @Sendable () -> Void) {
        let thread = queueThread
        queue.async { thread.run(body) }
    }

    func assertOnQueue(touching object: ManagedObject) {
        #if DEBUG
        if !isOnQueue {
            preconditionFailure("Strata: \(object) belongs to context '\(name ?? "unnamed")' (\(concurrencyType == .mainQueue ? "main queue" : "private queue")) but was used on another thread. Use context.perform { } / performAndWait { }, or pass object.objectID to the other context.")
        }
        #endif
    }

    // MARK: Objects

    /// Inserts a new object of `entityName`; it gets its permanent ID now and its attributes'
    /// default values. It is saved with the next ``save()``.
    ///
    /// - Throws: `.unknownEntity` naming the nearest entity.
    @discardableResult
    public func insert(_ entityName: String) throws(StrataError) -> ManagedObject {
        insert(layout: try store.layout(named: entityName))
    }

    /// ``insert(_:)`` for an entity whose layout is known (the typed layer's path, which
    /// looks its entity up once per context rather than by name per object).
    func insert(layout: EntityLayout) -> ManagedObject {
        let key = store.allocatePrimaryKeys(entity: layout.index, count: 1).lowerBound
        let registryKey = RegistryKey(entity: layout.index, primaryKey: key)
        let object = ManagedObject(primaryKey: key, layoutIndex: layout.index, registryEntity: layout.index, context: self, lifecycle: .inserted)
        object.committed = RowValues(store.insertDefaults[layout.index])
        sweepRegistryIfDue()
        registry[registryKey] = object
        changed[registryKey] = object
        return object
    }

    /// The object with `id`: the registered one, or a new fault (no data is read).
    ///
    /// Accessing a fault whose row no longer exists throws `.objectNotFound`.
    public func object(with id: ObjectID) -> ManagedObject {
        let index = store.layoutIndex[id.entityName]
        if let index, id.storeID == store.storeID { return object(layoutIndex: index, id: id) }
        if let key = foreignRegistry[id], let existing = registry[key] { return existing }
        sweepRegistryIfDue()
        // An ID this store cannot resolve gives a fault that throws on every access, rather
        // than one that reads another entity's (or another store's) row with the same key.
        let key = foreignRegistry[id] ?? RegistryKey(entity: -1 - foreignRegistry.count, primaryKey: id.primaryKey)
        let object = ManagedObject(objectID: id, layoutIndex: index ?? 0, registryKey: key, context: self, lifecycle: .persisted)
        object.unusable = foreignIDError(id, knownEntity: index != nil)
        foreignRegistry[id] = key
        registry[key] = object
        return object
    }

    /// ``object(with:)`` for an ID of this store whose entity's layout index is known: the
    /// registered object, or a new fault. One hash of the registry either way.
    /// `id` must be an ID of this context's store and of that entity.
    func object(layoutIndex index: Int, id: ObjectID) -> ManagedObject {
        assert(id.storeID == store.storeID && id.entityName == store.layouts[index].entity.name, "\(id) is not an ID of layout \(index)")
        return object(layoutIndex: index, primaryKey: id.primaryKey)
    }

    /// ``object(with:)`` for the object of the entity at layout `index` with `primaryKey`.
    func object(layoutIndex index: Int, primaryKey: Int64) -> ManagedObject {
        let key = RegistryKey(entity: index, primaryKey: primaryKey)
        sweepRegistryIfDue()
        // The closure captures the lifetime unretained (the context holds it), not the
        // context: capturing the context retained and released it twice per object.
        let lifetime = Unmanaged.passUnretained(self.lifetime)
        return registry.withSlot(key) { slot in
            // Held by the registry alone: nobody can tell it from a new fault, so it becomes one.
            if isKnownUniquelyReferenced(&slot) { slot.unsafelyUnwrapped.becomeFreshFault() }
            if let existing = slot { return existing }
            let object = ManagedObject(primaryKey: primaryKey, layoutIndex: index, registryEntity: index,
                                       lifetime: lifetime.takeUnretainedValue(), lifecycle: .persisted)
            slot = object
            return object
        }
    }

    /// The registered object with `id`, if something besides the registry holds it.
    func registered(_ id: ObjectID) -> ManagedObject? {
        let key: RegistryKey?
        if id.storeID == store.storeID, let index = store.layoutIndex[id.entityName] {
            key = RegistryKey(entity: index, primaryKey: id.primaryKey)
        } else {
            key = foreignRegistry[id]
        }
        guard let key else { return nil }
        return registry.withSlot(key, create: false) { slot in isKnownUniquelyReferenced(&slot) ? nil : slot }
    }

    /// Drops from the registry the objects with `keys` that only the registry still holds:
    /// called when something that held many objects lets them go (a save's changed objects,
    /// a fetch's results), so they are released then, as a weak registry would, rather than
    /// at the next sweep.
    func releaseUnused(_ keys: some Sequence<RegistryKey>) {
        for key in keys {
            registry.withSlot(key, create: false) { slot in
                if isKnownUniquelyReferenced(&slot) { slot = nil }
            }
        }
    }

    /// Empties `objects`, last first, letting go of each and dropping it from the registry
    /// when only the registry then holds it: ``releaseUnused(_:)`` for a list whose objects
    /// hold none of each other (an object's count must not fall after its turn).
    func releaseUnused(taking objects: inout [ManagedObject]) {
        while let object = objects.popLast() {
            let key = object.registryKey
            _ = consume object
            registry.withSlot(key, create: false) { slot in
                if isKnownUniquelyReferenced(&slot) { slot = nil }
            }
        }
    }

    /// The smallest registry size that triggers a sweep.
    static let minimumSweepThreshold = 4096

    /// Drops the objects only the registry holds once the registry has doubled since the
    /// last sweep, so it stays within twice the objects in use (amortized O(1) per object).
    func sweepRegistryIfDue() {
        guard registry.count >= registrySweepThreshold else { return }
        registry.forEachSlot { _, slot in
            if isKnownUniquelyReferenced(&slot) { slot = nil }
        }
        registrySweepThreshold = max(Self.minimumSweepThreshold, 2 * registry.count)
    }

    /// Called before `count` objects are made for something that holds every one of them
    /// until it lets them go through ``releaseUnused(_:)`` (a fetch's results): sweeps now if
    /// due, then moves the next sweep past those objects, which a sweep could not drop. A
    /// fetch of a million objects otherwise swept about a million objects while it made
    /// them, each a cache miss on an object made long before.
    func registryWillHold(_ count: Int) {
        sweepRegistryIfDue()
        registrySweepThreshold = max(registrySweepThreshold, 2 * (registry.count + count))
    }

    /// Why `id` cannot name an object of this context's store, or `nil` when it can.
    private func foreignIDError(_ id: ObjectID, knownEntity: Bool) -> StrataError? {
        if id.storeID != store.storeID {
            return StrataError(.unknownEntity, "The ID \(id) belongs to another store (\(id.storeID)); this context's store is \(store.storeID).", entity: id.entityName)
        }
        guard !knownEntity else { return nil }
        do { _ = try store.layout(named: id.entityName) } catch { return error }
        return nil
    }

    /// The object with `id`, loaded; throws when it does not exist in the store.
    ///
    /// - Throws: `.objectNotFound`; `.unknownEntity` for an ID of another store or entity.
    public func existingObject(with id: ObjectID) throws(StrataError) -> ManagedObject {
        if let error = foreignIDError(id, knownEntity: store.layoutIndex[id.entityName] != nil) { throw error }
        let object = object(with: id)
        if object.lifecycle == .deleted {
            throw StrataError(.objectNotFound, "\(object) was deleted in this context.", entity: id.entityName)
        }
        try object.fireFault()
        return object
    }

    /// Marks `object` deleted; the delete rules of its relationships are applied at save.
    public func delete(_ object: ManagedObject) {
        object.checkQueue()
        guard object.contextReference === self else { return }
        switch object.lifecycle {
        case .inserted:
            object.wasInserted = true
            object.lifecycle = .deleted
            changed[object.registryKey] = object
        case .persisted:
            object.lifecycle = .deleted
            changed[object.registryKey] = object
        case .deleted, .invalid:
            break
        }
    }

    /// Objects registered in the context and in use (held by something besides the context).
    public var registeredObjects: [ManagedObject] {
        var alive: [ManagedObject] = []
        registry.forEachSlot { _, slot in
            if !isKnownUniquelyReferenced(&slot), let object = slot { alive.append(object) }
        }
        return alive
    }

    /// Objects inserted and not yet saved.
    public var insertedObjects: [ManagedObject] { changed.values.filter { $0.unsavedChange == .inserted } }
    /// Objects with unsaved changes to their properties.
    public var updatedObjects: [ManagedObject] { changed.values.filter { $0.unsavedChange == .updated } }
    /// Objects deleted and not yet saved (those inserted in this context are left out).
    public var deletedObjects: [ManagedObject] { changed.values.filter { $0.unsavedChange == .deleted } }

    /// Whether anything is inserted, updated or deleted.
    public var hasChanges: Bool { changed.contains { $0.unsavedChange != nil } }

    // MARK: Internals

    func noteChanged(_ object: ManagedObject) {
        // An inserted object is in `changed` from insert(_:) until it is saved or dropped.
        if object.lifecycle == .inserted { return }
        if object.lifecycle == .persisted && object.pending.isEmpty {
            changed[object.registryKey] = nil
        } else {
            changed[object.registryKey] = object
        }
    }

    func propertyIndex(_ key: String, in object: ManagedObject) throws(StrataError) -> Int {
        if let names = propertyNames[object.layoutIndex] {
            for index in names.indices where names[index] == key { return index }
        } else if let index = propertyIndexes[object.layoutIndex][key] {
            return index
        }
        let layout = store.layouts[object.layoutIndex]
        if layout.entity.relationship(named: key)?.isToMany == true {
            throw StrataError(.unknownKey, "\(layout.entity.name).\(key) is a to-many relationship; use objects(forKey:), add(_:toKey:) and remove(_:fromKey:).", entity: layout.entity.name, key: key)
        }
        let names = layout.entity.propertyNames
        let suggestion = Schema.nearestName(to: key, among: names)
        throw StrataError(.unknownKey, "\(layout.entity.name) has no property named '\(key)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ".") + " Its properties are: \(names.joined(separator: ", ")).", entity: layout.entity.name, key: key)
    }

    /// The row of `object` in the store's newest published version (or in `version`), in
    /// place in its chunk, and the row's version.
    ///
    /// - Throws: `.corrupted` when a chunk of the store's snapshot failed its first decode
    ///   (``SnapshotDamage``), whether or not it is this row's.
    func readRow(of object: ManagedObject, in version: StoreVersion? = nil) throws(StrataError) -> (values: RowValues, version: UInt64)? {
        try store.checkingDamage { () throws(StrataError) in
            let version = version ?? store.currentVersion
            return version.withTable(object.layoutIndex) { $0.row(object.primaryKey) }
        }
    }
}



/// A registered object's key in its context: its entity's layout index and its primary key.
///
/// Cheaper to hash and compare than an ``ObjectID`` (no string, no UUID). IDs of another
/// store or of an unknown entity get negative entity numbers (see `foreignRegistry`).
struct RegistryKey: Hashable {
    let entity: Int
    let primaryKey: Int64

    func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(bitPattern: primaryKey) ^ (UInt64(truncatingIfNeeded: entity) &<< 48))
    }
}
