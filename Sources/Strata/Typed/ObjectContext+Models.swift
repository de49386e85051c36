extension ObjectContext {
    /// Inserts a new model object (and the new models it points to) into this context; it
    /// gets its permanent ID now and is saved with the next ``save()``.
    ///
    /// Inserting a model already in this context does nothing. Like SwiftData's, this call
    /// cannot throw: when it fails (the store's schema has no entity for the class, or the
    /// model belongs to another context) the next ``save()`` throws the error and nothing
    /// is saved.
    ///
    /// For example:
    /// ```swift
    /// let milk = TodoItem(name: "Buy milk")
    /// context.insert(milk)
    /// try context.save()
    /// ```
    public func insert<Model: PersistentModel>(_ model: Model) {
        do { _ = try attachModel(model) } catch { deferModelError(error) }
    }

    /// Marks a model object deleted; the delete rules of its relationships are applied at
    /// save. A model never inserted is left alone.
    public func delete<Model: PersistentModel>(_ model: Model) {
        guard let object = model._$backing.object else { return }
        delete(object)
    }

    /// The model object with `id`, or `nil` when there is no such object of `Model`'s
    /// entity in the store (SwiftData's `registeredModel`/`model(for:)` in one).
    ///
    /// - Throws: `.unknownEntity` for an ID of another store or entity; `.misuse` off the
    ///   context's queue.
    public func existingModel<Model: PersistentModel>(for id: ObjectID, as type: Model.Type = Model.self) throws(StrataError) -> Model? {
        guard id.entityName == Model.entityName else {
            throw StrataError(.unknownEntity, "The ID \(id) is of entity \(id.entityName), not \(Model.entityName).", entity: id.entityName)
        }
        _ = try modelLayoutIndex(Model.self)
        do {
            return uniqueModel(for: try existingObject(with: id), as: Model.self)
        } catch where error.code == .objectNotFound {
            return nil
        }
    }

    /// The typed face of an object of this context: the model already made for it, or a
    /// new one — the bridge from untyped results (an asynchronous fetch's objects, say) to
    /// models.
    ///
    /// - Throws: `.typeMismatch` when `object` is of another entity; `.misuse` when it
    ///   belongs to another context; `.schemaMismatch` as a typed fetch.
    public func model<Model: PersistentModel>(for object: ManagedObject, as type: Model.Type = Model.self) throws(StrataError) -> Model {
        guard object.contextReference === self else {
            throw StrataError(.misuse, "\(object) belongs to another context; get it in this one with existingModel(for: \(object.objectID)).", entity: object.entityName)
        }
        guard object.entityName == Model.entityName else {
            throw StrataError(.typeMismatch, "\(object) is a \(object.entityName), not a \(Model.entityName).", entity: object.entityName)
        }
        _ = try modelLayoutIndex(Model.self)
        return uniqueModel(for: object, as: Model.self)
    }

    /// The typed face of `object`: the model already made for it, or a new one (so each
    /// object has at most one model at a time, as each ID has one object).
    func uniqueModel<Model: PersistentModel>(for object: ManagedObject, as type: Model.Type) -> Model {
        uniqueModel(for: object, as: Model.self, sharesRegistrar: modelsShareRegistrar)
    }

    /// ``uniqueModel(for:as:)`` with whether a new model shares the context's registrar
    /// (``modelsShareRegistrar``), read once by a caller that makes many models: reading
    /// ``modelObservation`` costs an exclusivity check per model otherwise.
    func uniqueModel<Model: PersistentModel>(for object: ManagedObject, as type: Model.Type, sharesRegistrar: Bool) -> Model {
        if let model = object.typedModel as? Model { return model }
        let model = Model(_$backing: ModelBacking(object: object))
        // A sharing model leaves its `_$observation` empty and reaches the registrar through
        // its object (see `ModelRegistrar.access`).
        object.sharesContextRegistrar = sharesRegistrar
        object.typedModel = model
        return model
    }

    /// Whether this context's new models share its registrar rather than make their own
    /// (see ``ModelObservation``).
    var modelsShareRegistrar: Bool { modelObservation == .sharedByContext }

    /// ``model(for:as:)`` for a class known only at run time (a relationship's destination).
    func anyModel(for object: ManagedObject, as type: any PersistentModel.Type) -> AnyObject {
        func make<Model: PersistentModel>(_ type: Model.Type) -> AnyObject { uniqueModel(for: object, as: Model.self) as AnyObject }
        return make(type)
    }

    /// The managed object of `model`, inserting the model first when it is new.
    func attach(_ model: AnyObject) throws(StrataError) -> ManagedObject {
        guard let model = model as? any PersistentModel else {
            throw StrataError(.typeMismatch, "\(type(of: model)) is not a @Model class.")
        }
        return try attachModel(model)
    }

    func attachModel<Model: PersistentModel>(_ model: Model) throws(StrataError) -> ManagedObject {
        if let object = model._$backing.object {
            guard object.contextReference === self else {
                throw StrataError(.misuse, "\(object) belongs to another context; get it in this one with existingModel(for: \(object.objectID)).", entity: Model.entityName)
            }
            return object
        }
        let layoutIndex = try modelLayoutIndex(Model.self)
        let object = insert(layout: store.layouts[layoutIndex])
        let detached = model._$backing.detached
        model._$backing.object = object
        model._$backing.detached = nil
        // A model observed before insertion keeps the registrar it made.
        object.sharesContextRegistrar = model._$observation == nil && modelsShareRegistrar
        object.typedModel = model
        // The attributes set by the initializer become the new object's row as they are.
        guard let detached else { return object }
        if let row = detached.row(defaults: store.insertDefaults[layoutIndex]) { object.committed = RowValues(row) }
        guard !detached.models.isEmpty else { return object }
        let layout = Model._$layout
        for index in detached.models.keys.sorted() {
            let targets = detached.models[index] ?? []
            let name = layout.properties[index].name
            switch layout.properties[index].role {
            case .toOne:
                try object.setObject(try targets.first.map { target throws(StrataError) in try attach(target) }, forKey: name)
            case .toMany:
                for target in targets { try object.add(try attach(target), toKey: name) }
            case .attribute:
                break
            }
        }
        return object
    }

    /// The layout index of `Model`'s entity, checked once per context against the store's
    /// layout: the same stored properties in the same order.
    ///
    /// - Throws: `.unknownEntity` when the store has no such entity; `.schemaMismatch` when
    ///   its stored properties differ from the class's.
    func modelLayoutIndex<Model: PersistentModel>(_ type: Model.Type) throws(StrataError) -> Int {
        let key = ObjectIdentifier(Model.self)
        if let last = lastModelLayout, last.type == key { return last.index }
        if let index = modelLayoutIndexes[key] {
            lastModelLayout = (key, index)
            return index
        }
        let layout = try store.layout(named: Model.entityName)
        let stored = layout.properties.map(\.name)
        guard stored == Model._$layout.storedNames else {
            throw StrataError(.schemaMismatch, "The store's \(Model.entityName) has the stored properties \(stored.joined(separator: ", ")), but the @Model class has \(Model._$layout.storedNames.joined(separator: ", ")); open the store with Schema(\(Model.entityName).self, …) so that they agree.", entity: Model.entityName)
        }
        modelLayoutIndexes[key] = layout.index
        lastModelLayout = (key, layout.index)
        return layout.index
    }

    /// Keeps the first error of a typed-model call that cannot throw, for ``save()``.
    func deferModelError(_ error: StrataError) {
        if deferredModelError == nil { deferredModelError = error }
    }
}
