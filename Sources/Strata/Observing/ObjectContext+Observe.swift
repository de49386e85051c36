extension ObjectContext {
    /// A live query: the IDs of the objects `request` matches now, then again after each
    /// committed transaction that changes them (an object inserted, removed or moved, or one
    /// of them updated), and only then. Any transaction counts: this context's saves, other
    /// contexts' saves and batch requests.
    ///
    /// The results follow a ``FetchedResultsController`` on this context, so they update
    /// from the rows each commit touched. IDs are `Sendable`: iterate anywhere.
    ///
    /// For example:
    /// ```swift
    /// for try await ids in context.observe(FetchRequest(entityName: "TodoItem", predicate: undone)) {
    ///     print("\(ids.count) left to do")
    /// }
    /// ```
    ///
    /// The sequence ends when the iterating task is cancelled; it throws the request's
    /// error (a bad entity, key or predicate) at once, and `.corrupted` when a chunk of the
    /// store's snapshot fails its first read (an encrypted chunk that does not authenticate).
    public func observe(_ request: FetchRequest) -> AsyncThrowingStream<[ObjectID], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[ObjectID], any Error>.makeStream(bufferingPolicy: .unbounded)
        do {
            let controller = try FetchedResultsController(fetchRequest: request, context: self)
            try performAndWait {
                try controller.performFetch()
                continuation.yield(controller.fetchedObjectIDs)
                controller.didChange = { [weak controller] _ in
                    guard let controller else { return }
                    continuation.yield(controller.fetchedObjectIDs)
                }
                controller.didFail = { continuation.finish(throwing: $0) }
            }
            // The stream keeps the controller alive until it ends.
            continuation.onTermination = { _ in withExtendedLifetime(controller) {} }
        } catch {
            continuation.finish(throwing: error)
        }
        return stream
    }
}
