public import Observation

/// Where a model's persisted values live: its ``ManagedObject`` once the model is inserted
/// or fetched, its own slots before that.
///
/// `@Model` gives each model one (`var _$backing`) and reads and writes every persisted
/// property through it, so faulting, uniquing, change tracking and validation are the
/// managed object's, exactly as in the untyped API.
public struct ModelBacking {
    /// The managed object, once inserted or fetched (usable from inlinable code, so that
    /// ``PersistentModel/persistentModelID`` reads it without a copy of the backing).
    @usableFromInline var object: ManagedObject?
    /// Values set before insertion (`nil` once attached, and until a first set).
    var detached: DetachedValues?

    /// The storage of a new model, not in any context yet.
    public init() {}

    /// The storage of a model whose object is `object`.
    init(object: ManagedObject) { self.object = object }

    /// Called from the model's `deinit` (generated): its object forgets it and, when nothing
    /// else holds it, goes with it.
    ///
    /// The backing lets go of its object here rather than after the `deinit`, so that an
    /// object its context's registry alone now holds — one that counts as gone (see
    /// `ObjectContext.registry`) — is freed when its model is, in the order the models go
    /// (a fetch's, in the order they were made), instead of all at once, in key order, when
    /// the context goes. Only on the context's queue, and only for a stored object without
    /// unsaved changes: an inserted, deleted or changed object is held by the context's
    /// changes until it is saved or rolled back, and one that another model or untyped code
    /// still holds stays registered. Off the queue, or once the context is gone, the registry
    /// is not touched: its next sweep drops the object.
    public mutating func modelDidDeinit() {
        guard let object = object.take() else { return }
        object.typedModel = nil
        guard let context = object.unmanagedContext, object.lifecycle == .persisted, object.pending.isEmpty else { return }
        let key = object.registryKey
        // The registry must hold the last reference when it looks.
        _ = consume object
        // Without a reference count of its own (two atomic operations a model): on the
        // context's queue the context is running this block, so it lives throughout.
        context._withUnsafeGuaranteedRef { context in
            if context.isOnQueueQuickly { context.releaseUnused(CollectionOfOne(key)) }
        }
    }

    /// The value of the property at `index` (declaration order) of a model laid out as
    /// `layout`, or the kind's placeholder when there is none to read (the object was
    /// deleted from the store, or its context is gone: see ``PersistentModel/loadValues()``).
    ///
    /// `mutating` although it changes nothing, as are the specialized overloads: the getter
    /// then passes the model's stored backing in place. A non-mutating call on a class's
    /// stored property copies the struct out first, which retains and releases its object
    /// and its detached values on every read (four atomic operations).
    public mutating func value<Value>(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Value>) -> Value {
        genericValue(layout, index, kind)
    }

    /// The generic `value(_:_:_:)`'s body, which the specialized
    /// overloads fall back to.
    func genericValue<Value>(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Value>) -> Value {
        guard let object else {
            switch kind.role {
            case .attribute:
                guard let stored = layout.storedIndex[index], let value = detached?.value(at: stored) else { return kind.placeholder() }
                return kind.decode(value) ?? kind.placeholder()
            case .toOne, .toMany:
                guard let models = detached?.models[index] else { return kind.placeholder() }
                return kind.fromModels(models)
            }
        }
        switch kind.role {
        case .attribute:
            guard let stored = layout.storedIndex[index], let value = try? object.currentValue(stored) else {
                return kind.placeholder()
            }
            return kind.decode(value) ?? kind.placeholder()
        case .toOne(let destination):
            guard let stored = layout.storedIndex[index], let context = object.contextReference,
                  let modelType = kind.modelType, case .int(let key)? = try? object.currentValue(stored) else {
                return kind.placeholder()
            }
            let target = context.store.layoutIndex[destination].map { context.object(layoutIndex: $0, primaryKey: key) }
                ?? context.object(with: ObjectID(storeID: object.objectID.storeID, entityName: destination, primaryKey: key))
            return kind.fromModels([context.anyModel(for: target, as: modelType)])
        case .toMany:
            guard let context = object.contextReference, let modelType = kind.modelType,
                  let targets = try? object.objects(forKey: layout.properties[index].name) else {
                return kind.placeholder()
            }
            return kind.fromModels(targets.map { context.anyModel(for: $0, as: modelType) })
        }
    }

    /// Sets the property at `index`. On an inserted or fetched model this changes the
    /// managed object (a model it now points to is inserted into the same context); an
    /// error (the object was deleted, its context is gone) is thrown by the context's next
    /// save, as a setter cannot throw.
    public mutating func setValue<Value>(_ layout: ModelLayout, _ index: Int, _ kind: ModelValueKind<Value>, _ value: Value) {
        guard let object else {
            if case .attribute = kind.role {
                keepDetached(layout, index, kind.encode(value))
            } else {
                detachedValues().models[index] = kind.models(value)
            }
            return
        }
        guard let context = object.contextReference else { return }
        do throws(StrataError) {
            let name = layout.properties[index].name
            switch kind.role {
            case .attribute:
                guard let stored = layout.storedIndex[index] else { return }
                try object.setPending(stored, kind.encode(value))
            case .toOne:
                let target = try kind.models(value).first.map { model throws(StrataError) in try context.attach(model) }
                try object.setObject(target, forKey: name)
            case .toMany:
                let targets = try kind.models(value).map { model throws(StrataError) in try context.attach(model) }
                let current = try object.objects(forKey: name)
                let wanted = Set(targets.map(ObjectIdentifier.init))
                let had = Set(current.map(ObjectIdentifier.init))
                for old in current where !wanted.contains(ObjectIdentifier(old)) { try object.remove(old, fromKey: name) }
                for new in targets where !had.contains(ObjectIdentifier(new)) { try object.add(new, toKey: name) }
            }
        } catch {
            context.deferModelError(error)
        }
    }
}

extension ModelBacking {
    /// Keeps an attribute's value set on a model not inserted yet, for
    /// ``ObjectContext/insert(_:)``.
    mutating func keepDetached(_ layout: ModelLayout, _ index: Int, _ value: AttributeValue) {
        guard let stored = layout.storedIndex[index] else { return }
        detachedValues().set(value, at: stored, storedCount: layout.storedNames.count)
    }

    /// The context's registrar when this model shares it (``ModelObservation/sharedByContext``),
    /// without a reference count: the model holds ``object``, which holds the registrar.
    @inlinable var sharedRegistrar: Unmanaged<ModelRegistrar>? {
        guard let object, object.sharesContextRegistrar else { return nil }
        return Unmanaged.passUnretained(object.lifetime.sharedModelRegistrar)
    }

    /// The values kept before insertion, made on first use.
    mutating func detachedValues() -> DetachedValues {
        if let detached { return detached }
        let made = DetachedValues()
        detached = made
        return made
    }
}

/// The registrar a model's observers register with (`@Model` generates `_$observation`,
/// set when the model is first read or set, or by its context; see ``ModelObservation``):
/// a class, so that a context's models can share one.
public final class ModelRegistrar: Sendable {
    /// The registrar.
    public let registrar = ObservationRegistrar()

    /// A new registrar.
    public init() {}

    /// Tells observers that `model` read the property at `keyPath`, making the model's
    /// registrar (`slot`, its `_$observation`) first if it has none: what `@Model`'s getters
    /// call. The slot is passed `inout` so that the registrar is used where it is stored: a
    /// read of the model's property would copy it out (a retain and a release, two atomic
    /// operations, on every property read).
    ///
    /// A model that shares its context's registrar has none in its slot: it reaches the
    /// registrar through its object (`backing`), so that making and freeing the model costs
    /// no reference count on a registrar every model of the context shares.
    @inlinable @inline(__always) public static func access<Model: Observable, Member>(
        _ slot: inout ModelRegistrar?, _ backing: inout ModelBacking, _ model: Model, keyPath: KeyPath<Model, Member>
    ) {
        if slot == nil {
            if let shared = backing.sharedRegistrar {
                // The model holds its object, which holds the registrar, for the whole call.
                shared._withUnsafeGuaranteedRef { $0.access(model, keyPath: keyPath) }
                return
            }
            slot = ModelRegistrar()
        }
        // The model's slot holds the registrar for the whole call: no retain is needed.
        Unmanaged.passUnretained(slot.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.access(model, keyPath: keyPath) }
    }

    /// The registrar of a model whose slot (`_$observation`) is `slot` and whose storage is
    /// `backing`: its own, the context's it shares, or a new one of its own made now (what
    /// `@Model`'s setters notify through).
    public static func registrar(_ slot: inout ModelRegistrar?, _ backing: inout ModelBacking) -> ModelRegistrar {
        if let slot { return slot }
        if let shared = backing.sharedRegistrar { return shared.takeUnretainedValue() }
        let made = ModelRegistrar()
        slot = made
        return made
    }

    /// `registrar.access(_:keyPath:)`, not inlined: inside a method of the registrar's
    /// class the `let` is used in place, where inlined into the getter it is copied out
    /// first (through its value witnesses, with a retain and a release).
    @usableFromInline func access<Model: Observable, Member>(_ model: Model, keyPath: KeyPath<Model, Member>) {
        registrar.access(model, keyPath: keyPath)
    }

    /// Runs `mutation`, telling observers of `model`'s property at `keyPath` before and after
    /// (what `@Model`'s setters call).
    @inlinable public func withMutation<Model: Observable, Member, Result>(
        of model: Model, keyPath: KeyPath<Model, Member>, _ mutation: () throws -> Result
    ) rethrows -> Result {
        try registrar.withMutation(of: model, keyPath: keyPath, mutation)
    }
}
