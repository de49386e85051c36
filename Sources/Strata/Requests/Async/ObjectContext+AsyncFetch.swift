import Foundation
import StrataStorage

extension ObjectContext {
    /// Starts an asynchronous fetch and returns its handle at once.
    ///
    /// The request is checked first (unknown entity or key, type mismatch, negative limit
    /// throw here); the scan, the sort and building the results then run on a background
    /// queue over the store version current now, and objects are registered on this
    /// context's queue a slice at a time. Each step checks for cancellation and reports
    /// progress (see ``FetchProgress``). The completion runs on this context's queue.
    ///
    /// - Complexity: that of ``fetch(_:)``, off this context's queue except for registering
    ///   the objects of a request with no batch size.
    public func execute(_ request: AsynchronousFetchRequest) throws(StrataError) -> AsynchronousFetchResult {
        let plan = try FetchPlan(request.fetchRequest, store: store)
        // Checked now, so that a bad path fails the call rather than the fetch.
        _ = try prefetchPlan(request.fetchRequest.relationshipKeyPathsForPrefetching, from: plan.layout.index)
        let version = store.currentVersion
        let rows = version.tables[plan.layout.index].rowCount
        let result = AsynchronousFetchResult(totalRows: rows)
        // Records found so far, as they will count in the result: matches past the offset,
        // capped by the limit. It only grows, and ends at the result count.
        let offset = plan.request.fetchOffset, limit = plan.request.fetchLimit
        @Sendable func found(_ matches: Int) -> Int {
            let past = max(0, matches - offset)
            return limit > 0 ? min(past, limit) : past
        }
        // Units per result to build: the IDs, keys or dictionaries in the background, and
        // for objects with no batch size, registering them on the context's queue too.
        let resultType = plan.request.resultType
        let perResult = resultType == .count ? 0 : resultType == .objects && plan.request.fetchBatchSize == 0 ? 2 : 1
        let meter = FetchMeter(result: result, handler: request.progressHandler, rows: rows, found: found) { matches in
            plan.orderWork(count: matches) + found(matches) * perResult
        }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            // The matches in their compact form (next to nothing a row without a predicate),
            // consumed by ordering: each step's arrays go before the next's come, and IDs are
            // made in place over their keys (`FetchPlan.orderedIDs`).
            guard let matches = plan.scan(version, into: FetchMatches.self, onChunk: { meter.scanned($0.scanned, matches: $0.matches) }) else {
                return deliverCancellation(result, request: request)
            }
            let matchCount = matches.count
            let count = found(matchCount)
            meter.scanEnded(matches: matchCount, resultCount: count, remaining: plan.orderWork(count: matchCount) + count * perResult)
            guard plan.sort.isEmpty || meter.enter(.sorting) else { return deliverCancellation(result, request: request) }
            let built: BuiltResults
            if resultType == .objectIDs {
                guard let ids = plan.orderedIDs(consume matches, entity: store.idEntities[plan.layout.index], version: version,
                                                step: meter.advance, building: { meter.enter(.building) }, built: meter.advance)
                else { return deliverCancellation(result, request: request) }
                built = .objectIDs(ids)
            } else {
                guard let ordered = plan.order(consume matches, version: version, step: meter.advance),
                      meter.enter(.building),
                      let results = build(ordered, plan: plan, version: version, meter: meter)
                else { return deliverCancellation(result, request: request) }
                built = results
            }
            schedule { [self] in
                guard !meter.isCancelled else { return deliverCancellation(result, request: request) }
                // A chunk read by the scan, sort or build failed its first decode: no object is
                // made (its fault hint would hold the chunk's placeholder columns), the fetch fails.
                guard !store.snapshotDamage.isDamaged else {
                    return complete(result, request: request, meter: meter) { _ in }
                }
                switch built {
                case .objects(let keys, let places):
                    let objects = FetchedResults(context: self, ids: .keys(keys, entity: store.idEntities[plan.layout.index]),
                                                 batchSize: plan.request.fetchBatchSize, loadValues: !plan.request.returnsObjectsAsFaults,
                                                 layoutIndex: plan.layout.index, places: places, materialize: false,
                                                 prefetch: (try? prefetchPlan(plan.request.relationshipKeyPathsForPrefetching, from: plan.layout.index)) ?? [])
                    materialize(objects, from: 0, meter: meter, result: result, request: request)
                case .objectIDs(let ids):
                    complete(result, request: request, meter: meter) { $0.complete(objects: nil, ids: ids, count: ids.count, dictionaries: nil) }
                case .count:
                    complete(result, request: request, meter: meter) { $0.complete(objects: nil, ids: nil, count: count, dictionaries: nil) }
                case .dictionaries(let ids, let rows):
                    complete(result, request: request, meter: meter) { $0.complete(objects: nil, ids: ids, count: ids.count, dictionaries: rows) }
                }
            }
        }
        return result
    }

    /// What the background work hands to the context's queue: only `Sendable` values.
    private enum BuiltResults: Sendable {
        case objects(keys: [Int64], places: FetchPlaces)
        case objectIDs([ObjectID])
        case count
        case dictionaries(ids: [ObjectID], rows: [[String: AttributeValue]])
    }

    /// Builds the results of `ordered` in steps of at most ``FetchMeter/maximumStep``,
    /// or returns `nil` once cancelled.
    private func build(_ ordered: [FetchItem], plan: FetchPlan, version: StoreVersion, meter: FetchMeter) -> BuiltResults? {
        let step = FetchMeter.maximumStep
        let entity = store.idEntities[plan.layout.index]
        switch plan.request.resultType {
        case .count:
            return .count
        case .objects:
            var keys: [Int64] = [], places: [FetchPlaces.Place] = []
            keys.reserveCapacity(ordered.count)
            places.reserveCapacity(ordered.count)
            for start in stride(from: 0, to: ordered.count, by: step) {
                for item in ordered[start..<min(start + step, ordered.count)] {
                    keys.append(item.primaryKey)
                    if case .row(_, let chunk, let row) = item {
                        places.append(.init(chunk: chunk, row: row))
                    } else {
                        places.append(.none)
                    }
                }
                guard meter.advance(min(step, ordered.count - start)) else { return nil }
            }
            let table = version.tables[plan.layout.index]
            return .objects(keys: keys, places: FetchPlaces(lsn: version.lsn, chunks: table.chunks, places: places))
        case .objectIDs, .dictionaries:
            let wantsRows = plan.request.resultType == .dictionaries
            var ids: [ObjectID] = [], rows: [[String: AttributeValue]] = []
            ids.reserveCapacity(ordered.count)
            if wantsRows { rows.reserveCapacity(ordered.count) }
            for start in stride(from: 0, to: ordered.count, by: step) {
                for item in ordered[start..<min(start + step, ordered.count)] {
                    ids.append(ObjectID(entity: entity, primaryKey: item.primaryKey))
                    if wantsRows {
                        rows.append(Dictionary(uniqueKeysWithValues: plan.properties.map {
                            (plan.layout.properties[$0].name, plan.value(of: item, property: $0, version: version))
                        }))
                    }
                }
                guard meter.advance(min(step, ordered.count - start)) else { return nil }
            }
            return wantsRows ? .dictionaries(ids: ids, rows: rows) : .objectIDs(ids)
        }
    }

    /// Registers the objects of `objects` from position `start` on, one step per turn of
    /// the context's queue (other work on the queue runs in between), then completes.
    private func materialize(_ objects: FetchedResults, from start: Int, meter: FetchMeter, result: AsynchronousFetchResult,
                             request: AsynchronousFetchRequest) {
        guard !objects.isMaterialized else {
            return complete(result, request: request, meter: meter) { result in
                result.complete(objects: objects, ids: objects.objectIDs, count: objects.count, dictionaries: nil)
            }
        }
        let end = min(start + FetchMeter.maximumStep, objects.count)
        objects.materialize(upTo: end)
        guard meter.advance(end - start) else { return deliverCancellation(result, request: request) }
        // `FetchedResults` is not `Sendable`, but it only ever runs on this queue.
        let handOver = UncheckedBox(objects)
        schedule { [self] in
            guard !meter.isCancelled else { return deliverCancellation(result, request: request) }
            materialize(handOver.value, from: end, meter: meter, result: result, request: request)
        }
    }

    /// On the context's queue: completes the fetch unless it was cancelled first, with the
    /// last progress update just before the completion handler.
    private func complete(_ result: AsynchronousFetchResult, request: AsynchronousFetchRequest, meter: FetchMeter,
                          fill: (AsynchronousFetchResult) -> Void) {
        guard result.claimCompletion() else { return deliverCancellation(result, request: request) }
        if let damage = store.snapshotDamage.error {
            // The scan, sort or build read a chunk that failed its first decode (or one did
            // before): the fetch fails with the damage and returns nothing it found.
            result.fail(damage)
            result.finishStream()
            request.completion(result)
            return
        }
        fill(result)
        meter.finish()
        request.completion(result)
    }

    private func deliverCancellation(_ result: AsynchronousFetchResult, request: AsynchronousFetchRequest) {
        let deliver: @Sendable () -> Void = {
            result.fail(StrataError(.cancelled, "The asynchronous fetch of \(request.fetchRequest.entityName) was cancelled; there is no partial result.", entity: request.fetchRequest.entityName))
            result.finishStream()
            request.completion(result)
        }
        if isOnQueue { deliver() } else { schedule(deliver) }
    }

    /// Fetches asynchronously from any task: the scan runs in the background, `progress`
    /// gets the updates, and cancelling the awaiting task cancels the fetch.
    ///
    /// A cancellation is reported at once: the task resumes with `.cancelled` as soon as it
    /// is cancelled (unless the fetch had already completed), while the background work
    /// stops at its next check.
    ///
    /// - Returns: the IDs of the results, in order (objects stay on their context's queue;
    ///   turn IDs into objects with ``object(with:)`` there).
    /// - Throws: request errors, or `.cancelled`.
    public func fetchObjectIDs(_ request: FetchRequest,
                               progress: (@Sendable (FetchProgress) -> Void)? = nil) async throws -> [ObjectID] {
        let box = ResultBox(entityName: request.entityName)
        // Only IDs leave the scan: objects would be registered (and, without faults, loaded)
        // on the context's queue for nothing, and a count would have no IDs to return.
        var idsOnly = request
        idsOnly.resultType = .objectIDs
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[ObjectID], any Error>) in
                // A task cancelled before it got here would otherwise race the scan: a small
                // fetch can finish before `box.set` passes the cancellation on.
                guard box.wait(continuation) else {
                    continuation.resume(throwing: StrataError(.cancelled, "The fetch of \(request.entityName) was cancelled before it started."))
                    return
                }
                let asynchronous = AsynchronousFetchRequest(fetchRequest: idsOnly) { result in
                    if let ids = result.objectIDs { box.resume(.success(ids)) }
                    else { box.resume(.failure(result.operationError ?? box.cancellation)) }
                }
                if let progress {
                    // The task can be cancelled before `box.set` passes the cancellation on
                    // (the scan's first update can come before `execute` returns): no update
                    // goes out once it is.
                    asynchronous.progressHandler = { update in if !box.isCancelled { progress(update) } }
                }
                do {
                    box.set(try execute(asynchronous))
                } catch {
                    box.resume(.failure(error))
                }
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Carries a value that is not `Sendable` to the queue it belongs to, where alone it is used.
private struct UncheckedBox<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: the value is made on the context's queue and only used there.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Holds the running fetch and the awaiting task's continuation, so that task cancellation
/// reaches the fetch whichever comes first, and the continuation is resumed exactly once:
/// by the completion, or at once by a cancellation that wins against it.
private final class ResultBox: Sendable {
    private struct State {
        var result: AsynchronousFetchResult?
        var cancelled = false
        var continuation: CheckedContinuation<[ObjectID], any Error>?
    }
    private let state = Locked(State())
    private let entityName: String

    init(entityName: String) { self.entityName = entityName }

    /// The error a cancelled fetch resumes with.
    var cancellation: StrataError {
        StrataError(.cancelled, "The asynchronous fetch of \(entityName) was cancelled; there is no partial result.", entity: entityName)
    }

    /// Whether the awaiting task was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Keeps `continuation` for ``resume(_:)``; `false` when the task is already cancelled.
    func wait(_ continuation: CheckedContinuation<[ObjectID], any Error>) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.continuation = continuation
            return true
        }
    }

    /// The running fetch; cancelled at once when the task already is.
    func set(_ result: AsynchronousFetchResult) {
        let cancelNow = state.withLock { state -> Bool in
            state.result = result
            return state.cancelled
        }
        if cancelNow { cancel(result) }
    }

    /// The task was cancelled.
    func cancel() {
        let (result, waiting) = state.withLock { state in
            state.cancelled = true
            return (state.result, state.continuation != nil)
        }
        if let result { cancel(result) } else if waiting { resume(.failure(cancellation)) }
    }

    private func cancel(_ result: AsynchronousFetchResult) {
        result.cancel()
        // Lost against the completion: the IDs come through it.
        if result.isCancelled { resume(.failure(cancellation)) }
    }

    /// Resumes the awaiting task, the first time only.
    func resume(_ outcome: Result<[ObjectID], any Error>) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
    }
}
