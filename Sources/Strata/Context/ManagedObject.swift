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

    // The stored properties are ordered and sized so that an object is at most 88 bytes,
    // a block of 96: malloc serves it from its fast bins (blocks up to 128 bytes), which a
    // million-object fetch, relationship read or insert allocates and frees at a fraction
    // of the cost of bigger blocks (an object was a block of 208 bytes, then 112, before).
    // `ManagedObjectLayoutTests` holds it there. What few objects need (an ID of another
    // store and its layout index, prefetched objects, why it is unusable) is boxed in
    // `extras`; what every object of a context shares (the context, the store's ID, the
    // entity names, where each property's column is) is in `lifetime`; a fault hint's
    // fetch number rides in its row (``ObjectRow``).

    /// The primary key of its ID.
    @exclusivity(unchecked) private(set) var primaryKey: Int64
    /// Shared with its context and every other object of it: whether the context lives, the
    /// context itself (without a reference count), the registrar the context's models share,
    /// and the store's ID and entity names its ``objectID`` is made of.
    @usableFromInline let lifetime: ContextLifetime
    /// The committed values (see ``committed``), or, while `rowState` is `.hint`, where a
    /// fetch found the row of this fault (see ``faultHint``): never both, so they share the
    /// storage. Empty (``ObjectRow/empty``) while `rowState` is `.none`; not optional, so that
    /// a value is read from it in place (an optional would be copied out first).
    @exclusivity(unchecked) private var row = ObjectRow.empty
    /// The version of `row`.
    @exclusivity(unchecked) private var rowVersion: UInt64 = 0
    /// Changes not yet saved, by property index. Starts as `Dictionary()`, the shared empty
    /// storage: the literal `[:]` called the literal initializer for every object made.
    @exclusivity(unchecked) var pending: [Int: AttributeValue] = Dictionary()
    /// The `@Model` instance that is this object's typed face, if one was made. Not counted:
    /// the model holds the object (the registry counts an object held only by itself as
    /// gone, which a strong cycle would defeat), and the model's generated `deinit` clears
    /// this before the model goes, so it never dangles. A weak reference would do the same
    /// with a side table allocated per model (a sixth of a typed million-object fetch).
    /// See ``ObjectContext/model(for:as:)``.
    unowned(unsafe) var typedModel: AnyObject?
    /// What few objects have: see ``Extras``. Read for every ``layoutIndex``, so not checked
    /// for exclusivity at run time (no accessor holds an inout access to it across a call).
    @exclusivity(unchecked) private var extras: Extras?
    @exclusivity(unchecked) var lifecycle: Lifecycle
    /// Whether it was inserted in this context before being deleted in it.
    var wasInserted = false
    /// Whether its model (``typedModel``) registers observers with the context's shared
    /// registrar (``ModelObservation/sharedByContext``) rather than one of its own; set when
    /// the model is made or inserted.
    @exclusivity(unchecked) @usableFromInline var sharesContextRegistrar = false
    /// What `row` holds.
    @exclusivity(unchecked) private var rowState = RowState.none
    // Declared after the four one-byte fields, which it fills a word with.
    /// The entity number of its key in the context's registry and changed objects (the
    /// primary key is the ID's): the layout index, or a negative number for an ID this store
    /// cannot resolve (whose layout index is then in `extras`).
    private let registryEntity: Int32

    /// What an object's `row` holds.
    private enum RowState: UInt8 {
        /// Nothing: a fault without a hint.
        case none
        /// A fault hint.
        case hint
        /// The committed values.
        case committed
    }

    /// The state only some objects have, boxed so that the others do without its bytes.
    private final class Extras {
        /// The object's ID when the context's store and layouts cannot make it: an ID of
        /// another store or of an entity the store does not have, or spelled differently.
        var id: ObjectID?
        /// The object's layout index when its registry entity is not that index (an ID the
        /// store cannot resolve).
        var layoutIndex: Int?
        /// Objects a fetch prefetched for this one, held so that they stay registered while
        /// this object is used.
        var prefetched: [ManagedObject]?
        /// Why the object can never be used.
        var unusable: StrataError?
        /// Whether the reason is that another transaction deleted the object's row.
        var deletedInStore = false
    }

    /// ``extras``, made on first use.
    private var madeExtras: Extras {
        if let extras { return extras }
        let made = Extras()
        extras = made
        return made
    }

    /// The object's permanent identity. It changes once at most: when a save merges an
    /// inserted object into a stored row with the same unique values (see
    /// ``MergePolicy/objectTrump``), the object takes over that row's ID.
    public internal(set) var objectID: ObjectID {
        get {
            if let id = extras?.id { return id }
            return ObjectID(entity: lifetime.idEntities[layoutIndex], primaryKey: primaryKey)
        }
        set {
            primaryKey = newValue.primaryKey
            if registryEntity >= 0, lifetime.idEntities.indices.contains(layoutIndex),
               newValue.belongs(to: lifetime.idEntities[layoutIndex]) {
                extras?.id = nil
            } else {
                madeExtras.id = newValue
            }
        }
    }

    /// Its entity's index in the store's layouts.
    var layoutIndex: Int {
        if registryEntity >= 0 { return Int(registryEntity) }
        return extras?.layoutIndex ?? 0
    }
    /// Its key in the context's registry and changed objects.
    var registryKey: RegistryKey { RegistryKey(entity: Int(registryEntity), primaryKey: primaryKey) }
    /// Its context, or `nil` once the context is gone.
    var contextReference: ObjectContext? { lifetime.isAlive ? lifetime.context : nil }
    /// Its context without a reference count, or `nil` once the context is gone: for a
    /// caller that uses it (through `_withUnsafeGuaranteedRef`) only while it is sure the
    /// context lives, as a model's `deinit` does on the context's queue.
    var unmanagedContext: Unmanaged<ObjectContext>? { lifetime.isAlive ? lifetime.unmanagedContext : nil }

    /// Stored property values as last read from the store (`nil` while a fault). For an
    /// object inserted in this context: its values, defaults overwritten by every change
    /// made since (there is no store row to keep apart from, so `pending` stays empty).
    /// Setting or changing it drops a fault hint.
    var committed: RowValues? {
        get { rowState == .committed ? RowValues(row, columns: lifetime.columnsByLayout[layoutIndex]) : nil }
        _modify {
            dropHint()
            // Moved out and back, so that a change in place finds the values uniquely held.
            var values: RowValues?
            if rowState == .committed {
                values = RowValues(row, columns: lifetime.columnsByLayout[layoutIndex])
                row = .empty
            }
            yield &values
            if let values {
                row = values.row
                rowState = .committed
            } else {
                row = .empty
                rowState = .none
            }
        }
    }

    /// The row version those values came from (0 for an object inserted in this context, and
    /// while a fault). Setting it drops a fault hint.
    var committedVersion: UInt64 {
        get { rowState == .hint ? 0 : rowVersion }
        set {
            dropHint()
            rowVersion = newValue
        }
    }

    /// While a fault: where the fetch that made it found its row (see ``FaultHint``).
    /// ``giveHint(_:in:)`` gives one; ``forgetRow()`` or setting ``committed`` drops it.
    var faultHint: FaultHint? {
        rowState == .hint ? FaultHint(row: row.copy(), rowVersion: rowVersion, fetchedLSN: unretainedContextForHints.hintLSN(ofEpoch: row.hintEpoch)) : nil
    }

    /// Whether it is a fault that holds a hint (``faultHint``).
    var hasFaultHint: Bool { rowState == .hint }

    /// Gives a fault that holds no row (``holdsNoRow``) the place a fetch of `context` (its
    /// context) found its row.
    func giveHint(_ hint: consuming FaultHint, in context: ObjectContext) {
        precondition(rowState != .committed, "a fault hint is only given to a fault")
        guard let epoch = context.hintEpochNumber(for: hint.fetchedLSN) else { return }
        rowVersion = hint.rowVersion
        row = hint.row.hinted(epoch)
        rowState = .hint
    }

    /// The context, for the `faultHint` getter (used on its queue, so it lives).
    private var unretainedContextForHints: ObjectContext { lifetime.context.unsafelyUnwrapped }

    /// Forgets the fault hint, if `row` holds one.
    private func dropHint() {
        if rowState == .hint { forgetRow() }
    }

    /// Whether the object holds its committed values (it is not a fault).
    var hasCommittedValues: Bool { rowState == .committed }

    /// Whether the committed value of any of `properties` is null, read in place (the values
    /// must be loaded, after ``fireFault()``).
    func committedHasNull(at properties: [Int]) -> Bool {
        precondition(rowState == .committed, "the committed values of a fault")
        let layout = layoutIndex
        return row.hasNull(at: properties) { lifetime.columnAccess(layout: layout, property: $0) }
    }

    /// The committed value of the stored property at `property`, read in place in the row
    /// (the values must be loaded, after ``fireFault()``): nothing of the row is copied out,
    /// and where its column is comes from the lifetime's table (plain values), so the read
    /// counts no reference.
    func committedValue(at property: Int) -> AttributeValue {
        precondition(rowState == .committed, "the committed values of a fault")
        return row.value(at: property, lifetime.columnAccess(layout: layoutIndex, property: property))
    }

    /// Changes one committed value in place (the values must be loaded): an inserted object's
    /// change, or a saved change folded into the values.
    func setCommittedValue(_ property: Int, _ value: AttributeValue) {
        precondition(rowState == .committed, "the committed values of a fault")
        row.setValue(value, at: property, columns: lifetime.columnsByLayout[layoutIndex])
    }

    /// Whether it holds neither committed values nor a fault hint: a fault a fetch may give
    /// a hint.
    var holdsNoRow: Bool { rowState == .none }

    /// Makes the hinted row the committed values when the store published nothing since the
    /// fetch that gave the hint (its version is still `context`'s newest hinted one, and the
    /// store's newest): firing the fault then moves nothing. Otherwise drops the hint.
    /// Returns whether the values are now committed.
    func takeHint(in context: ObjectContext) -> Bool {
        guard rowState == .hint else { return false }
        guard context.isCurrentHintEpoch(row.hintEpoch) else {
            dropHint()
            return false
        }
        rowState = .committed
        return true
    }

    /// Objects a fetch prefetched for this one (``FetchRequest/relationshipKeyPathsForPrefetching``),
    /// held so that they stay registered while this object is used.
    var prefetched: [ManagedObject]? {
        get { extras?.prefetched }
        set {
            if newValue == nil, extras == nil { return }
            madeExtras.prefetched = newValue
        }
    }

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
        get { extras?.unusable }
        set {
            if newValue == nil, extras == nil { return }
            madeExtras.unusable = newValue
            madeExtras.deletedInStore = false
        }
    }

    /// Whether a merge found the object's row deleted by another transaction (another
    /// context's save, a batch delete, or the writer process a read-only store follows).
    var isDeletedInStore: Bool { extras?.deletedInStore ?? false }

    /// Marks the object as deleted by another transaction: ``isDeleted`` is `true` from now
    /// on, and every access throws `error` (`.objectNotFound`).
    func markDeletedInStore(_ error: StrataError) {
        madeExtras.unusable = error
        madeExtras.deletedInStore = true
    }

    /// An object of its context's store, of the entity at `layoutIndex`, registered under
    /// `registryEntity` (the layout index, or a negative number for an ID the store cannot
    /// resolve): its ID is made of the store's ID and the entity's name.
    convenience init(primaryKey: Int64, layoutIndex: Int, registryEntity: Int, context: ObjectContext, lifecycle: Lifecycle) {
        self.init(primaryKey: primaryKey, layoutIndex: layoutIndex, registryEntity: registryEntity,
                  lifetime: context.lifetime, lifecycle: lifecycle)
    }

    /// ``init(primaryKey:layoutIndex:registryEntity:context:lifecycle:)`` given the context's
    /// `lifetime`: a caller making objects in the registry's slot does not capture (and
    /// retain) the context for it.
    init(primaryKey: Int64, layoutIndex: Int, registryEntity: Int, lifetime: ContextLifetime, lifecycle: Lifecycle) {
        self.primaryKey = primaryKey
        self.registryEntity = Int32(registryEntity)
        self.lifetime = lifetime
        self.lifecycle = lifecycle
        // A registry entity that is not negative is the layout index (see `registryEntity`).
        if registryEntity < 0 { madeExtras.layoutIndex = layoutIndex } else { assert(registryEntity == layoutIndex, "a registry entity that is not negative is the layout index") }
    }

    /// An object with `objectID`, which is kept whole unless the context's store and layout
    /// `layoutIndex` make the same ID.
    convenience init(objectID: ObjectID, layoutIndex: Int, registryKey: RegistryKey, context: ObjectContext, lifecycle: Lifecycle) {
        precondition(registryKey.primaryKey == objectID.primaryKey, "a registry key carries its object's primary key")
        self.init(primaryKey: objectID.primaryKey, layoutIndex: layoutIndex, registryEntity: registryKey.entity,
                  context: context, lifecycle: lifecycle)
        if registryKey.entity < 0 || !lifetime.idEntities.indices.contains(layoutIndex)
            || !objectID.belongs(to: lifetime.idEntities[layoutIndex]) {
            madeExtras.id = objectID
        }
    }

    /// The context the object belongs to (`nil` once that context is gone).
    public var context: ObjectContext? { contextReference }

    /// The entity's name.
    public var entityName: String { extras?.id?.entityName ?? lifetime.idEntities[layoutIndex].entityName }

    /// Whether the object's data has not been loaded yet.
    public var isFault: Bool { checkQueue(); return !hasCommittedValues && lifecycle == .persisted }

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
        "<\(objectID.entityName) \(objectID.primaryKey)\(!hasCommittedValues && lifecycle == .persisted ? " (fault)" : "")>"
    }

    /// Turns an unchanged object back into a fault, as if it were new: its context does so
    /// when it hands out again an object nothing but the context still held (see
    /// `ObjectContext.registry`), so that it reads the store afresh.
    func becomeFreshFault() {
        guard lifecycle == .persisted, pending.isEmpty, extras?.unusable == nil else { return }
        forgetRow()
    }

    /// Makes it hold no row: neither committed values nor a fault hint (a refresh; a fresh
    /// fault). Its unsaved changes are the caller's business.
    func forgetRow() {
        rowState = .none
        row = .empty
        rowVersion = 0
    }

    func checkQueue() {
        #if DEBUG
        contextReference?.assertOnQueue(touching: self)
        #endif
    }

    func requireContext() throws(StrataError) -> ObjectContext {
        if let unusable = extras?.unusable { throw unusable }
        guard let context = contextReference, lifecycle != .invalid else { throw unregistered }
        context.assertOnQueue(touching: self)
        return context
    }

    /// ``requireContext()`` without counting a reference, for a caller that uses the context
    /// only until it returns, through `_withUnsafeGuaranteedRef` (a retain and a release less
    /// per property read). The context lives throughout: the object is used on the
    /// context's queue, where the context is alive (checked here), and nothing a read does
    /// lets go of it. As for ``ContextLifetime``, releasing a context on another thread
    /// while one of its objects is in use breaks the confinement contexts require.
    @inline(__always)
    func requireUnmanagedContext() throws(StrataError) -> Unmanaged<ObjectContext> {
        if let unusable = extras?.unusable { throw unusable }
        guard let context = unmanagedContext, lifecycle != .invalid else { throw unregistered }
        context._withUnsafeGuaranteedRef { $0.assertOnQueue(touching: self) }
        return context
    }

    /// The error of an object whose context was reset or released.
    private var unregistered: StrataError {
        StrataError(.misuse, "\(self) is no longer registered in a context (its context was reset or released); fetch it again with its objectID.", entity: entityName)
    }
}
