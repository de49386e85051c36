import Foundation

/// An object in a context: a row of an entity, read and changed by key.
///
/// Objects belong to one ``ObjectContext`` and must be used only on its queue (inside
/// ``ObjectContext/perform(_:)`` or ``ObjectContext/performAndWait(_:)``); debug builds trap
/// with a message that says so. To use an object elsewhere, pass its ``objectID``. An object
/// does not keep its context alive: once the context is released, using the object throws
/// `.misuse`.
///
/// A fault (``isFault``) holds no data until a property is first read.
///
/// For example:
/// ```swift
/// let item = try context.insert("TodoItem")
/// try item.setValue("Buy milk", forKey: "name")
/// let name = try item.string("name")
/// ```
public final class ManagedObject: CustomStringConvertible {
    // The mutable state below is `@exclusivity(unchecked)`: it is read and written only on
    // the context's queue (so never by two threads at once), and no accessor holds an inout
    // access to it across a call that could touch the same property, so the runtime checks
    // on every access (a measurable share of each insert and fault) are skipped.

    enum Lifecycle: Equatable {
        case inserted, persisted, deleted, invalid
    }

    /// The object's permanent identity. It changes once at most: when a save merges an
    /// inserted object into a stored row with the same unique values (see
    /// ``MergePolicy/objectTrump``), the object takes over that row's ID.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID
    let layoutIndex: Int
    /// The entity number of its key in the context's registry and changed objects (the
    /// primary key is the ID's; storing only this keeps every object 8 bytes smaller).
    private let registryEntity: Int
    /// Its key in the context's registry and changed objects.
    var registryKey: RegistryKey { RegistryKey(entity: registryEntity, primaryKey: objectID.primaryKey) }
    /// Its context, without a reference count: only used while `lifetime` says the context
    /// is alive (see ``ContextLifetime``).
    private unowned(unsafe) let unretainedContext: ObjectContext
    /// Shared with its context and every other object of it: whether the context lives, and
    /// the registrar the context's models share.
    @usableFromInline let lifetime: ContextLifetime
    /// Its context, or `nil` once the context is gone.
    var contextReference: ObjectContext? { lifetime.isAlive ? unretainedContext : nil }
    /// Its context without a reference count, or `nil` once the context is gone: for a
    /// caller that uses it (through `_withUnsafeGuaranteedRef`) only while it is sure the
    /// context lives, as a model's `deinit` does on the context's queue.
    var unmanagedContext: Unmanaged<ObjectContext>? { lifetime.isAlive ? Unmanaged.passUnretained(unretainedContext) : nil }
    /// Stored property values as last read from the store (`nil` while a fault). For an
    /// object inserted in this context: its values, defaults overwritten by every change
    /// made since (there is no store row to keep apart from, so `pending` stays empty).
    @exclusivity(unchecked) var committed: RowValues?
    /// While a fault: where the fetch that made it found its row (see ``FaultHint``).
    @exclusivity(unchecked) var faultHint: FaultHint?
    /// Objects a fetch prefetched for this one (``FetchRequest/relationshipKeyPathsForPrefetching``),
    /// held so that they stay registered while this object is used.
    @exclusivity(unchecked) var prefetched: [ManagedObject]?
    /// The row version those values came from (0 for an object inserted in this context).
    @exclusivity(unchecked) var committedVersion: UInt64 = 0
    /// Changes not yet saved, by property index.
    @exclusivity(unchecked) var pending: [Int: AttributeValue] = [:]
    @exclusivity(unchecked) var lifecycle: Lifecycle
    /// Whether it was inserted in this context before being deleted in it.
    var wasInserted = false
    /// Whether its model (``typedModel``) registers observers with the context's shared
    /// registrar (``ModelObservation/sharedByContext``) rather than one of its own; set when
    /// the model is made or inserted.
    @exclusivity(unchecked) @usableFromInline var sharesContextRegistrar = false
    /// The `@Model` instance that is this object's typed face, if one was made. Not counted:
    /// the model holds the object (the registry counts an object held only by itself as
    /// gone, which a strong cycle would defeat), and the model's generated `deinit` clears
    /// this before the model goes, so it never dangles. A weak reference would do the same
    /// with a side table allocated per model (a sixth of a typed million-object fetch).
    /// See ``ObjectContext/model(for:as:)``.
    unowned(unsafe) var typedModel: AnyObject?
    /// What a save of the context would do with this object: the one definition behind the
    /// context's inserted, updated and deleted objects and `hasChanges`.
    enum UnsavedChange: Equatable {
        case inserted, updated, deleted
    }

    /// The unsaved change this object stands for, or `nil` when a save has nothing to do
    /// with it (unchanged, invalid, or inserted and deleted again in this context).
    var unsavedChange: UnsavedChange? {
        switch lifecycle {
        case .inserted: return .inserted
        case .persisted: return pending.isEmpty ? nil : .updated
        case .deleted: return wasInserted ? nil : .deleted
        case .invalid: return nil
        }
    }

    /// Why the object can never be used, for a fault made from an ID of another store or of
    /// an entity the store does not have (`object(with:)` cannot throw, so every access does).
    var unusable: StrataError? {
        get { unusableReason?.error }
        set { unusableReason = newValue.map { UnusableReason($0) } }
    }
    /// ``unusable``, boxed: almost every object has none, and the error inline would make
    /// every object 64 bytes bigger.
    private var unusableReason: UnusableReason?

    private final class UnusableReason {
        let error: StrataError
        /// Whether the reason is that another transaction deleted the object's row.
        let deletedInStore: Bool
        init(_ error: StrataError, deletedInStore: Bool = false) {
            self.error = error
            self.deletedInStore = deletedInStore
        }
    }

    /// Whether a merge found the object's row deleted by another transaction (another
    /// context's save, a batch delete, or the writer process a read-only store follows).
    var isDeletedInStore: Bool { unusableReason?.deletedInStore ?? false }

    /// Marks the object as deleted by another transaction: ``isDeleted`` is `true` from now
    /// on, and every access throws `error` (`.objectNotFound`).
    func markDeletedInStore(_ error: StrataError) {
        unusableReason = UnusableReason(error, deletedInStore: true)
    }

    init(objectID: ObjectID, layoutIndex: Int, registryKey: RegistryKey, context: ObjectContext, lifecycle: Lifecycle) {
        self.objectID = objectID
        self.layoutIndex = layoutIndex
        precondition(registryKey.primaryKey == objectID.primaryKey, "a registry key carries its object's primary key")
        registryEntity = registryKey.entity
        unretainedContext = context
        lifetime = context.lifetime
        self.lifecycle = lifecycle
    }

    /// The context the object belongs to (`nil` once that context is gone).
    public var context: ObjectContext? { contextReference }

    /// The entity's name.
    public var entityName: String { objectID.entityName }

    /// Whether the object's data has not been loaded yet.
    public var isFault: Bool { checkQueue(); return committed == nil && lifecycle == .persisted }

    /// Whether it was inserted in its context and not saved yet.
    public var isInserted: Bool { checkQueue(); return lifecycle == .inserted }

    /// Whether it has unsaved changes to its properties (and is not inserted or deleted).
    public var isUpdated: Bool { checkQueue(); return lifecycle == .persisted && !pending.isEmpty }

    /// Whether it was deleted: in its context, with the delete not saved yet, or in the store
    /// by another transaction that its context merged (another context's save or a batch
    /// delete, with ``ObjectContext/automaticallyMergesChangesFromStore`` or a manual merge).
    ///
    /// An object deleted in the store is no longer registered in its context and has no
    /// unsaved change (``hasChanges`` is `false`): reading or changing it throws
    /// `.objectNotFound`, saying it was deleted in the store.
    public var isDeleted: Bool { checkQueue(); return lifecycle == .deleted || isDeletedInStore }

    /// Whether it is inserted, updated or deleted in its context (a save would write it).
    public var hasChanges: Bool {
        checkQueue()
        return lifecycle == .inserted || lifecycle == .deleted || (lifecycle == .persisted && !pending.isEmpty)
    }

    /// `<Entity pk (state)>`, never the values.
    public var description: String {
        "<\(objectID.entityName) \(objectID.primaryKey)\(committed == nil && lifecycle == .persisted ? " (fault)" : "")>"
    }

    /// Turns an unchanged object back into a fault, as if it were new: its context does so
    /// when it hands out again an object nothing but the context still held (see
    /// `ObjectContext.registry`), so that it reads the store afresh.
    func becomeFreshFault() {
        guard lifecycle == .persisted, pending.isEmpty, unusable == nil else { return }
        committed = nil
        committedVersion = 0
        faultHint = nil
    }

    func checkQueue() {
        #if DEBUG
        contextReference?.assertOnQueue(touching: self)
        #endif
    }

    func requireContext() throws(StrataError) -> ObjectContext {
        if let unusable { throw unusable }
        guard let context = contextReference, lifecycle != .invalid else {
            throw StrataError(.misuse, "\(self) is no longer registered in a context (its context was reset or released); fetch it again with its objectID.", entity: entityName)
        }
        context.assertOnQueue(touching: self)
        return context
    }
}
