/// How observers (Observation's `withObservationTracking`, SwiftUI) of a context's models
/// register: with each model, or with the context.
///
/// Every model is `Observable`: an observer that read a property hears of its change,
/// whether it came from a setter, a refresh or a merge. What differs is what else it hears
/// of, and what a model costs:
///
/// - ``eachModel``, the default of a main-queue context (the one a user interface reads),
///   as SwiftData does: each model has its own registrar, made the first time one of its
///   properties is read or set, so an observer hears only of the models it read.
/// - ``sharedByContext``, the default of a private-queue context (imports, model actors,
///   bulk reads): the context's models share one registrar, so an observer that read `name`
///   of one model also hears when `name` of another model of the context changes. Nothing
///   is missed; a model costs no registrar of its own (two allocations and a lock, a third
///   of what a million-object fetch costs otherwise).
///
/// Set ``ObjectContext/modelObservation`` before fetching or inserting: a model keeps the
/// registrar it has. A model not inserted anywhere yet registers with itself.
public enum ModelObservation: Sendable {
    /// Each model has its own registrar: observers hear only of the models they read.
    case eachModel
    /// The context's models share one registrar: observers may hear of other models'
    /// changes to the properties they read, and models cost less.
    case sharedByContext
}
