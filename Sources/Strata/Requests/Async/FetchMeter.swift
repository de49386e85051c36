/// Counts the work of one asynchronous fetch, sends its progress updates and tells each
/// phase whether to go on.
///
/// Every phase calls ``advance(_:)`` at most ``maximumStep`` units apart; an update goes out
/// once ``maximumStep`` units have gathered since the last one, so two updates are never
/// more than ``AsynchronousFetchRequest/maximumUnitsBetweenUpdates`` units apart, and a
/// cancellation is seen within one step of any moment.
///
/// `@unchecked Sendable`: used on one thread at a time — the background queue, then the
/// context's queue, to which the background work hands it over with `async` (which orders
/// the two) and never touches it again.
final class FetchMeter: @unchecked Sendable {
    /// The most units one call to ``advance(_:)`` may add.
    static let maximumStep = AsynchronousFetchRequest.maximumUnitsBetweenUpdates / 2

    private let result: AsynchronousFetchResult
    private let handler: (@Sendable (FetchProgress) -> Void)?
    private var progress: FetchProgress
    private var lastReported = -1
    /// Maps matches so far to records found (offset and limit applied).
    private let found: (Int) -> Int

    /// A meter for a fetch over `rows` rows, whose every other phase is costed by
    /// `work(matches)` (so the first estimate assumes that every row matches).
    init(result: AsynchronousFetchResult, handler: (@Sendable (FetchProgress) -> Void)?, rows: Int,
         found: @escaping (Int) -> Int, work: (Int) -> Int) {
        self.result = result
        self.handler = handler
        self.found = found
        progress = FetchProgress(found: 0, scanned: 0, total: rows, isFinished: false, phase: .scanning,
                                 completedUnits: 0, totalUnits: rows + work(rows))
        result.progress.totalUnitCount = Int64(progress.totalUnits)
    }

    /// Whether the fetch was cancelled.
    var isCancelled: Bool { result.isCancelled }

    /// The update that the next report would send.
    var current: FetchProgress { progress }

    /// After a scanned chunk: `scanned` rows looked at, `matches` found.
    func scanned(_ scanned: Int, matches: Int) -> Bool {
        let units = scanned - progress.scanned
        progress.scanned = scanned
        progress.found = found(matches)
        return advance(units)
    }

    /// The scan is over with `matches` matches, `resultCount` of them results, and the
    /// rest of the work costs `remaining` units: the total is known from now on.
    func scanEnded(matches: Int, resultCount: Int, remaining: Int) {
        progress.found = resultCount
        progress.totalUnits = progress.completedUnits + remaining
        result.progress.totalUnitCount = Int64(progress.totalUnits)
    }

    /// Enters `phase`, reporting the change.
    func enter(_ phase: FetchProgress.Phase) -> Bool {
        progress.phase = phase
        report()
        return !isCancelled
    }

    /// Adds `units` of work (at most ``maximumStep``); reports when enough have gathered.
    /// - Returns: whether to go on (`false` once cancelled).
    func advance(_ units: Int) -> Bool {
        progress.completedUnits = min(progress.completedUnits + units, progress.totalUnits)
        if lastReported < 0 || progress.completedUnits - lastReported >= Self.maximumStep { report() }
        return !isCancelled
    }

    /// The last update: everything done. Sent only by the one who won against `cancel()`.
    func finish() {
        progress.phase = .finished
        progress.isFinished = true
        progress.completedUnits = progress.totalUnits
        send()
    }

    private func report() {
        lastReported = progress.completedUnits
        send()
    }

    private func send() {
        // No update once cancelled: a cancelled fetch's last update is the one before.
        guard !isCancelled || progress.isFinished else { return }
        result.report(progress, to: handler)
    }
}
