extension ObjectContext {
    /// A live query in one line: the models `descriptor` describes now, then again after
    /// each committed transaction that changes them (this context's saves, other contexts'
    /// saves, batch requests such as "check all"), and only then.
    ///
    /// For example:
    /// ```swift
    /// for try await items in store.mainContext.observe(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.createdAt)])) {
    ///     render(items)
    /// }
    /// ```
    ///
    /// Models stay on the main actor, so this needs the main context; a model actor can
    /// observe IDs with ``observe(_:)-(FetchRequest)``. The sequence ends when the iterating
    /// task is cancelled.
    ///
    /// - Throws: (from the sequence) `.misuse` for a private-queue context; the errors of
    ///   ``fetch(_:)-(FetchDescriptor<Model>)``.
    @MainActor
    public func observe<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) -> AsyncThrowingStream<[Model], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[Model], any Error>.makeStream(bufferingPolicy: .unbounded)
        do {
            guard concurrencyType == .mainQueue else {
                throw StrataError(.misuse, "observe(_:) with a FetchDescriptor hands out models on the main actor, so it needs the main context (store.mainContext); in a model actor, observe a FetchRequest's IDs with observe(_:) instead.", entity: Model.entityName)
            }
            let controller = try FetchedResultsController(descriptor: descriptor, context: self)
            try controller.performFetch()
            continuation.yield(controller.fetchedObjects)
            controller.didChange = { [weak controller] _ in
                guard let controller else { return }
                continuation.yield(controller.fetchedObjects)
            }
            continuation.onTermination = { _ in withExtendedLifetime(controller) {} }
        } catch {
            continuation.finish(throwing: error)
        }
        return stream
    }
}
