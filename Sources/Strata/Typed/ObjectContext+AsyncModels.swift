extension ObjectContext {
    /// The IDs of the objects matching `descriptor`, scanned asynchronously on a background
    /// queue with progress; cancelling the calling task cancels the scan. The IDs are
    /// `Sendable`: any context or model actor turns them into models.
    ///
    /// - Throws: as ``fetch(_:)-(FetchDescriptor<Model>)``, and `.cancelled`.
    public func fetchIdentifiers<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>,
                                                         progress: (@Sendable (FetchProgress) -> Void)?) async throws -> [ObjectID] {
        try await fetchObjectIDs(descriptor.fetchRequest(), progress: progress)
    }

    /// The classic to-do fetch, typed: the matching objects of this main-queue context,
    /// scanned asynchronously (the main actor stays free meanwhile) with progress and
    /// cancellation, then handed out as models — faults that load on first access.
    ///
    /// For example:
    /// ```swift
    /// let items = try await store.mainContext.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.createdAt)])) {
    ///     print("Fetched \($0.found) records")
    /// }
    /// ```
    ///
    /// - Throws: `.misuse` for a private-queue context (use a model actor and
    ///   ``fetchIdentifiers(_:progress:)`` there); as ``fetchIdentifiers(_:progress:)``.
    @MainActor
    public func fetch<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>,
                                              progress: (@Sendable (FetchProgress) -> Void)?) async throws -> [Model] {
        guard concurrencyType == .mainQueue else {
            throw StrataError(.misuse, "fetch(_:progress:) hands out models on the main actor, so it needs the main context (store.mainContext); in a model actor, await fetchIdentifiers(_:progress:) and get the models there.")
        }
        let layoutIndex = try modelLayoutIndex(Model.self)
        let request = try descriptor.fetchRequest()
        let ids = try await fetchObjectIDs(request, progress: progress)
        let sharesRegistrar = modelsShareRegistrar
        return ids.map { uniqueModel(for: object(layoutIndex: layoutIndex, id: $0), as: Model.self, sharesRegistrar: sharesRegistrar) }
    }
}
