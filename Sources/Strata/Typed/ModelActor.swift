/// An actor that owns a private-queue context and runs on that context's queue, for
/// background work on models (SwiftData's `ModelActor`). Write `@ModelActor actor Name {}`
/// (module `StrataModels`): the macro generates the requirements.
///
/// Inside the actor, `modelContext` is used directly (the actor's code runs on its queue);
/// outside, only `ObjectID`s and `Sendable` values go in and out — model objects are not
/// `Sendable`, so the compiler refuses to let them cross.
///
/// For example:
/// ```swift
/// @ModelActor actor Importer {
///     func importItems(_ names: [String]) throws -> [ObjectID] {
///         let items = names.map { TodoItem(name: $0) }
///         items.forEach(modelContext.insert)
///         try modelContext.save()
///         return items.compactMap(\.persistentModelID)
///     }
/// }
/// let ids = try await Importer(store: store).importItems(["a", "b"])
/// ```
public protocol ModelActor: Actor {
    /// The actor's context, on the actor's queue.
    nonisolated var modelContext: ObjectContext { get }
    /// The executor that runs the actor on its context's queue.
    nonisolated var modelExecutor: ModelExecutor { get }
}

extension ModelActor {
    /// The actor runs on its context's queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { modelExecutor.asUnownedSerialExecutor() }
}

/// Runs an actor's jobs on its context's queue, so the actor's code may use the context
/// (and its objects) directly.
public final class ModelExecutor: SerialExecutor {
    /// The context whose queue runs the jobs.
    public let context: ObjectContext

    /// An executor on `context`'s queue.
    public init(context: ObjectContext) { self.context = context }

    /// Runs `job` on the context's queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        let thread = context.queueThread
        context.queue.async { thread.run { job.runSynchronously(on: executor) } }
    }

    /// Whether the caller is on the context's queue.
    public func checkIsolated() {
        precondition(context.isOnQueue, "Strata: a model actor's code ran off its context's queue.")
    }
}
