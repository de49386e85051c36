import Foundation
import StrataStorage

extension ObjectContext {
    /// Starts an asynchronous fetch and returns its handle at once.
    ///
    /// The request is checked first (unknown entity or key, type mismatch, negative limit
    /// throw here); the scan then runs on a background queue over the store version current
    /// now. The completion runs on this context's queue.
    ///
    /// - Complexity: the scan is that of ``fetch(_:)``, off this context's queue.
    public func execute(_ request: AsynchronousFetchRequest) throws(StrataError) -> AsynchronousFetchResult {
        let plan = try FetchPlan(request.fetchRequest, store: store)
        let version = store.currentVersion
        let result = AsynchronousFetchResult(totalRows: version.tables[plan.layout.index].rowCount)
        let handler = request.progressHandler
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            var lastReport = -1
            // Records found so far, as they will count in the result: matches past the offset,
            // capped by the limit. It only grows, and ends at the result count.
            let offset = plan.request.fetchOffset, limit = plan.request.fetchLimit
            func found(_ matches: Int) -> Int {
                let past = max(0, matches - offset)
                return limit > 0 ? min(past, limit) : past
            }
            let items = plan.scan(version) { progress in
                if result.progress.isCancelled { return false }
                // The first chunk, then at least every 16 Ki rows.
                if lastReport < 0 || progress.scanned - lastReport >= 16_384 {
                    lastReport = progress.scanned
                    result.report(FetchProgress(found: found(progress.matches), scanned: progress.scanned,
                                                total: progress.total, isFinished: false), to: handler)
                }
                return true
            }
            guard let items, !result.progress.isCancelled else {
                self.deliverCancellation(result, request: request)
                return
            }
            let ordered = plan.order(items, version: version)
            let total = version.tables[plan.layout.index].rowCount
            // Only Sendable values cross to the context's queue: IDs and dictionaries.
            let entity = plan.layout.entity.name, storeID = self.store.storeID
            let ids = ordered.map { ObjectID(storeID: storeID, entityName: entity, primaryKey: $0.primaryKey) }
            let rows: [[String: AttributeValue]]? = plan.request.resultType != .dictionaries ? nil : ordered.map { item in
                Dictionary(uniqueKeysWithValues: plan.properties.map { (plan.layout.properties[$0].name, plan.value(of: item, property: $0, version: version)) })
            }
            result.report(FetchProgress(found: ids.count, scanned: total, total: total, isFinished: true), to: handler)
            self.schedule {
                if result.progress.isCancelled {
                    self.deliverCancellation(result, request: request)
                    return
                }
                switch plan.request.resultType {
                case .objects:
                    let objects = FetchedResults(context: self, ids: ids, batchSize: plan.request.fetchBatchSize,
                                                 loadValues: !plan.request.returnsObjectsAsFaults)
                    result.complete(objects: objects, ids: ids, count: ids.count, dictionaries: nil)
                case .objectIDs:
                    result.complete(objects: nil, ids: ids, count: ids.count, dictionaries: nil)
                case .count:
                    result.complete(objects: nil, ids: nil, count: ids.count, dictionaries: nil)
                case .dictionaries:
                    result.complete(objects: nil, ids: ids, count: ids.count, dictionaries: rows)
                }
                request.completion(result)
            }
        }
        return result
    }

    private func deliverCancellation(_ result: AsynchronousFetchResult, request: AsynchronousFetchRequest) {
        schedule {
            result.fail(StrataError(.cancelled, "The asynchronous fetch of \(request.fetchRequest.entityName) was cancelled; there is no partial result.", entity: request.fetchRequest.entityName))
            result.finishStream()
            request.completion(result)
        }
    }

    /// Fetches asynchronously from any task: the scan runs in the background, `progress`
    /// gets the updates, and cancelling the awaiting task cancels the fetch.
    ///
    /// - Returns: the IDs of the results, in order (objects stay on their context's queue;
    ///   turn IDs into objects with ``object(with:)`` there).
    /// - Throws: request errors, or `.cancelled`.
    public func fetchObjectIDs(_ request: FetchRequest,
                               progress: (@Sendable (FetchProgress) -> Void)? = nil) async throws -> [ObjectID] {
        let box = ResultBox()
        // Only IDs leave the scan: objects would be registered (and, without faults, loaded)
        // on the context's queue for nothing, and a count would have no IDs to return.
        var idsOnly = request
        idsOnly.resultType = .objectIDs
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[ObjectID], any Error>) in
                let asynchronous = AsynchronousFetchRequest(fetchRequest: idsOnly) { result in
                    if let ids = result.objectIDs { continuation.resume(returning: ids) }
                    else { continuation.resume(throwing: result.operationError ?? StrataError(.cancelled, "The fetch was cancelled.")) }
                }
                asynchronous.progressHandler = progress
                // A task cancelled before it got here would otherwise race the scan: a small
                // fetch can finish before `box.set` passes the cancellation on.
                guard !box.isCancelled else {
                    continuation.resume(throwing: StrataError(.cancelled, "The fetch was cancelled before it started."))
                    return
                }
                do {
                    let result = try execute(asynchronous)
                    box.set(result)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Holds the running fetch so task cancellation can reach it, whichever comes first.
private final class ResultBox: Sendable {
    private let state = Locked<(result: AsynchronousFetchResult?, cancelled: Bool)>((nil, false))
    func set(_ result: AsynchronousFetchResult) {
        let cancelNow = state.withLock { s -> Bool in s.result = result; return s.cancelled }
        if cancelNow { result.cancel() }
    }
    func cancel() {
        let result = state.withLock { s -> AsynchronousFetchResult? in s.cancelled = true; return s.result }
        result?.cancel()
    }
    /// Whether the awaiting task was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }
}
