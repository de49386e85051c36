extension PersistentStore {
    /// The store's main-queue context, bound to the main actor: code on `@MainActor` uses it
    /// directly, and the compiler rejects a use from anywhere else (SwiftData's
    /// `mainContext`). The same context every time; made on first use.
    ///
    /// A command-line tool needs no run loop for it: `@MainActor` code runs on the main
    /// thread, which is this context's queue.
    ///
    /// For example:
    /// ```swift
    /// @MainActor func show(_ store: PersistentStore) throws {
    ///     let items = try store.mainContext.fetch(FetchDescriptor<TodoItem>())
    ///     print(items.count)
    /// }
    /// ```
    @MainActor public var mainContext: ObjectContext {
        if let context = mainContextSlot.context { return context }
        let context = ObjectContext(store: self, concurrencyType: .mainQueue, name: "main")
        mainContextSlot.context = context
        return context
    }
}

/// Holds a store's main context; only the main actor reads or writes it.
@MainActor final class MainContextSlot: Sendable {
    var context: ObjectContext?
    nonisolated init() {}
}
