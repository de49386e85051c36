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
    /// Called on a background queue with monotonic progress: after the first chunk, at
    /// least every 16,384 rows, and once at the end with the result count. Set before executing.
    public var progressHandler: (@Sendable (FetchProgress) -> Void)?

    /// Creates a request.
    public init(fetchRequest: FetchRequest, completion: @escaping @Sendable (AsynchronousFetchResult) -> Void) {
        self.fetchRequest = fetchRequest
        self.completion = completion
    }
}
