extension ObjectContext {
    /// Fetches the model objects `descriptor` describes, including this context's unsaved
    /// changes unless it says otherwise. Each object comes back as the same model instance
    /// every time it is fetched while something holds it (uniquing).
    ///
    /// - Throws: `.unsupportedPredicate` naming a predicate construct the engine cannot
    ///   run (before any row is read); `.schemaMismatch` when the store's entity does not
    ///   match the class; every error of ``fetch(_:)-(FetchRequest)``.
    /// - Complexity: as the untyped fetch: O(rows of the entity) for the scan, O(m log m)
    ///   to order m matches, and one model per match.
    public func fetch<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws(StrataError) -> [Model] {
        _ = try modelLayoutIndex(Model.self)
        let results = try fetch(descriptor.fetchRequest(), materialize: false)
        let sharesRegistrar = modelsShareRegistrar
        let models = [Model](unsafeUninitializedCapacity: results.count) { buffer, made in
            guard let base = buffer.baseAddress else { return }
            // Without a batch size each object's model is made as the object is, beside it
            // in memory; with one, nothing is made here and the models are made below.
            _ = results.materializeAll { position, object in
                (base + position).initialize(to: uniqueModel(for: object, as: Model.self, sharesRegistrar: sharesRegistrar))
                made = position + 1
            }
        }
        guard models.count == results.count else {
            return results.map { uniqueModel(for: $0, as: Model.self, sharesRegistrar: sharesRegistrar) }
        }
        // Results that kept their objects (to prefetch for them) let them go here without
        // a registry lookup each: the models hold them.
        _ = results.takeAllObjects()
        return models
    }

    /// How many objects match `descriptor` (offset and limit applied); no object is made.
    ///
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    /// - Complexity: O(rows of the entity).
    public func fetchCount<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws(StrataError) -> Int {
        _ = try modelLayoutIndex(Model.self)
        return try count(for: descriptor.fetchRequest())
    }

    /// The IDs of the objects matching `descriptor`, in order; no object is made. IDs are
    /// `Sendable`: pass them to another context or actor and get the models there with
    /// ``existingModel(for:as:)``.
    ///
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``.
    public func fetchIdentifiers<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws(StrataError) -> [ObjectID] {
        _ = try modelLayoutIndex(Model.self)
        return try fetchObjectIDs(descriptor.fetchRequest())
    }
}
