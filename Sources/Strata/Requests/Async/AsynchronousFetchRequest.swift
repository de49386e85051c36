/// A fetch that runs on a background queue, reports progress and can be cancelled, leaving
/// its context usable meanwhile (Core Data's `NSAsynchronousFetchRequest`).
///
/// The scan reads one pinned store version chunk by chunk: saves made meanwhile, by this
/// context or others, do not change what it returns. It reads the saved state as of its
/// start; the context's unsaved changes are not included. The completion handler runs on
/// the context's queue, with the results registered in the context.
///
/// For example:
/// ```swift
/// let request = AsynchronousFetchRequest(fetchRequest: allItems) { result in
///     guard let items = result.finalResult else { return }   // cancelled or failed
///     print("Fetched \(items.count) items")
/// }
/// request.progressHandler = { print("Fetched \($0.found) records") }
/// let result = try context.execute(request)
/// // later: result.cancel()
/// ```
public final class AsynchronousFetchRequest: @unchecked Sendable {
    // `@unchecked Sendable`: `progressHandler` is set before `execute` and only read after,
    // by the background scan; everything else is immutable.

    /// The fetch to run.
    public let fetchRequest: FetchRequest
    /// Called once, on the context's queue, when the fetch completes, fails or is cancelled.
    public let completion: @Sendable (AsynchronousFetchResult) -> Void
    /// Called with monotonic progress: on a background queue after the first chunk and then
    /// at most ``maximumUnitsBetweenUpdates`` units of work apart, through the scan, the sort
    /// and building the results; the last update (``FetchProgress/isFinished``) comes on the
    /// context's queue just before the completion, and never after a cancellation. Set before
    /// executing.
    public var progressHandler: (@Sendable (FetchProgress) -> Void)?

    /// The most units of work (rows scanned, matches placed by a pass of the sort, results
    /// built; see ``FetchProgress``) between two progress updates: 16,384. The fetch checks
    /// for cancellation at least as often.
    public static let maximumUnitsBetweenUpdates = 16_384

    /// Creates a request.
    public init(fetchRequest: FetchRequest, completion: @escaping @Sendable (AsynchronousFetchResult) -> Void) {
        self.fetchRequest = fetchRequest
        self.completion = completion
    }
}
