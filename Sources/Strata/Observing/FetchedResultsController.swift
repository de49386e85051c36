import Foundation
internal import StrataStorage

/// The results of a fetch, kept up to date as transactions commit, with what changed each
/// time (Core Data's `NSFetchedResultsController`).
///
/// The controller follows the store's committed state: this context's saves, other
/// contexts' saves and batch requests alike. It updates from the rows each commit touched —
/// never by fetching again — so one saved object reaches it in microseconds even when it
/// holds a million results, and a batch update of a million rows arrives as one change.
/// Unsaved changes in the context do not count (the request's
/// ``FetchRequest/includesPendingChanges`` is ignored).
///
/// Use it on its context's queue. Its ``changes`` and ``didChange`` are called there too,
/// after the context's queue has run whatever was scheduled before the commit's
/// notification. The objects it hands out are its context's: to see other contexts' new
/// values in them, set ``ObjectContext/automaticallyMergesChangesFromStore`` (the
/// controller's loaded objects are then merged before each change is reported).
///
/// For example:
/// ```swift
/// var request = FetchRequest(entityName: "TodoItem", sortKeys: [SortKey("createdAt")])
/// let controller = try FetchedResultsController(fetchRequest: request, context: viewContext)
/// try viewContext.performAndWait { try controller.performFetch() }
/// controller.didChange = { change in print("\(change.insertedOffsets.count) inserted") }
/// ```
///
/// A controller with a ``FetchRequest/fetchLimit``, a ``FetchRequest/fetchOffset`` or a
/// predicate through relationships fetches again on each change that could affect it, and
/// reports the difference; its updates are then O(rows of the entity).
///
/// `@unchecked Sendable`: the store's notification (on a committing thread) only schedules
/// work on the context's queue; every mutable field is touched on that queue alone, except
/// the stream continuations, which are behind a lock.
public final class FetchedResultsController<ResultType>: @unchecked Sendable {
    /// The context whose objects the controller hands out.
    public let context: ObjectContext
    /// The request it fetches.
    public let fetchRequest: FetchRequest
    /// The attribute whose value groups the results into sections (`nil`: one section).
    public let sectionNameKey: String?
    /// Called on the context's queue with each change of the results (Core Data's
    /// delegate). Set it on the queue.
    public var didChange: ((FetchedResultsChange) -> Void)?

    /// Called once, on the context's queue, when an update finds that a chunk of the store's
    /// snapshot failed its first read (`.corrupted`): no change is reported after it
    /// (``ObjectContext/observe(_:)`` ends its sequence with the error).
    var didFail: ((StrataError) -> Void)?

    let plan: FetchPlan
    let sectionProperty: Int?
    let makeResult: (ManagedObject) -> ResultType
    /// The version the results reflect; `nil` before ``performFetch()``.
    var synced: StoreVersion?
    var keys = OrderedKeys()
    var sectionRuns = SectionRuns()
    var observation: ObservationToken?
    let syncScheduled = Locked(false)
    let continuations = Locked<[UUID: AsyncStream<FetchedResultsChange>.Continuation]>([:])

    init(fetchRequest: FetchRequest, context: ObjectContext, sectionNameKey: String?,
         makeResult: @escaping (ManagedObject) -> ResultType) throws(StrataError) {
        var request = fetchRequest
        request.includesPendingChanges = false
        let plan = try FetchPlan(request, store: context.store)
        var sectionProperty: Int?
        if let sectionNameKey {
            guard let index = plan.layout.propertyIndex[sectionNameKey] else {
                let names = plan.layout.properties.map(\.name)
                throw StrataError(.unknownKey, "Cannot make sections by '\(sectionNameKey)': \(plan.layout.entity.name) has no attribute or to-one relationship of that name. Its keys are: \(names.joined(separator: ", ")).", entity: plan.layout.entity.name, key: sectionNameKey)
            }
            guard plan.sort.first?.property == index else {
                throw StrataError(.misuse, "Sections by '\(sectionNameKey)' need the results sorted by it first; make SortKey(\"\(sectionNameKey)\") the request's first sort key.", entity: plan.layout.entity.name, key: sectionNameKey)
            }
            sectionProperty = index
        }
        self.context = context
        self.fetchRequest = request
        self.sectionNameKey = sectionNameKey
        self.plan = plan
        self.sectionProperty = sectionProperty
        self.makeResult = makeResult
    }

    deinit {
        observation?.cancel()
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }

    // MARK: Results

    /// Fetches the results from the store's newest version and starts following commits.
    /// Calling it again fetches anew (no change is reported for that).
    ///
    /// - Throws: `.misuse` off the context's queue; `.corrupted` when a chunk of the store's
    ///   snapshot fails its first read (an encrypted chunk that does not authenticate), the
    ///   results then left as they were.
    /// - Complexity: O(rows of the entity) for the scan, O(m log m) to order m matches.
    public func performFetch() throws(StrataError) {
        try checkQueue("performFetch()")
        let version = context.store.currentVersion
        let (items, sections) = try context.store.checkingDamage {
            let items = plan.order(plan.scan(version) ?? [], version: version)
            return (items, sectionProperty.map { property in
                SectionRuns(items.lazy.map { Self.sectionName(self.plan.value(of: $0, property: property, version: version)) })
            } ?? SectionRuns())
        }
        keys = OrderedKeys(items.map(\.primaryKey))
        sectionRuns = sections
        synced = version
        if observation == nil {
            observation = context.store.observeChanges { [weak self] _ in self?.scheduleUpdate() }
        }
    }

    /// How many results there are.
    public var count: Int { keys.count }

    /// The IDs of the results, in order.
    /// - Complexity: O(n).
    public var fetchedObjectIDs: [ObjectID] {
        let entity = context.store.idEntities[plan.layout.index]
        return keys.all.map { ObjectID(entity: entity, primaryKey: $0) }
    }

    /// The result at `offset` (a fault until its values are read). Use it on the context's
    /// queue.
    /// - Complexity: O(n / 1024).
    public func object(at offset: Int) -> ResultType {
        let id = ObjectID(entity: context.store.idEntities[plan.layout.index], primaryKey: keys[offset])
        return makeResult(context.object(layoutIndex: plan.layout.index, id: id))
    }

    /// The results, in order (faults until their values are read). Use it on the context's
    /// queue; for a large result, ``object(at:)`` makes only the objects shown.
    /// - Complexity: O(n), one object per result.
    public var fetchedObjects: [ResultType] {
        let index = plan.layout.index, entity = context.store.idEntities[index]
        return keys.all.map { makeResult(context.object(layoutIndex: index, id: ObjectID(entity: entity, primaryKey: $0))) }
    }

    /// The sections of the results, in order: runs of equal values of ``sectionNameKey``
    /// (without one, a single section named `""` holding every result).
    public var sections: [FetchedResultsSection] {
        guard sectionProperty != nil else { return [FetchedResultsSection(name: "", offsets: 0..<keys.count)] }
        return sectionRuns.sections
    }

    /// Each change of the results from now on, as an asynchronous sequence (delivered after
    /// the change is applied, in order; ended when the controller is released).
    public var changes: AsyncStream<FetchedResultsChange> {
        let (stream, continuation) = AsyncStream<FetchedResultsChange>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        continuations.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.continuations.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Brings the results up to date with the store's newest version now (rather than when
    /// the context's queue gets to the commit's notification), reporting the change, if any.
    ///
    /// - Throws: `.misuse` off the context's queue, or before ``performFetch()``;
    ///   `.corrupted` when a chunk of the store's snapshot failed its first read (the results
    ///   are then no longer updated).
    public func processPendingChanges() throws(StrataError) {
        try checkQueue("processPendingChanges()")
        guard synced != nil else {
            throw StrataError(.misuse, "processPendingChanges() was called before performFetch(); call performFetch() first.", entity: plan.layout.entity.name)
        }
        update()
        try context.store.snapshotDamage.check()
    }

    // MARK: Internals

    private func checkQueue(_ call: String) throws(StrataError) {
        guard context.isOnQueue else {
            throw StrataError(.misuse, "\(call) was called off the controller's context's queue; call it inside context.perform { } or performAndWait { }.", entity: plan.layout.entity.name)
        }
    }

    /// Schedules one update on the context's queue (one at a time, however many commits
    /// arrive meanwhile: each update catches up with the newest version).
    private func scheduleUpdate() {
        let first = syncScheduled.withLock { scheduled -> Bool in
            defer { scheduled = true }
            return !scheduled
        }
        guard first else { return }
        context.schedule { [weak self] in
            guard let self else { return }
            self.syncScheduled.withLock { $0 = false }
            self.update()
        }
    }

    /// Updates the results to the newest version and reports the change.
    func update() {
        guard let old = synced else { return }
        let new = context.store.currentVersion
        guard new.lsn > old.lsn else { return }
        let change = difference(from: old, to: new)
        // Nothing computed from a chunk that failed its first decode is reported: the results
        // stay as they were, and the damage goes to `didFail` (then to the next throwing call).
        if let damage = context.store.snapshotDamage.error {
            didFail?(damage)
            didFail = nil
            return
        }
        synced = new
        guard let change, !change.isEmpty else { return }
        if context.automaticallyMergesChangesFromStore {
            context.catchUpLoadedObjects(entity: plan.layout.index, to: new)
        }
        didChange?(change)
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(change) }
    }

    /// A section key's value as a section name.
    static func sectionName(_ value: AttributeValue) -> String {
        switch value {
        case .null: return ""
        case .bool(let v): return String(v)
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return v
        case .date(let v): return v.formatted(.iso8601)
        case .uuid(let v): return v.uuidString
        case .binary(let v): return v.base64EncodedString()
        }
    }
}

extension FetchedResultsController where ResultType == ManagedObject {
    /// A controller of the objects `fetchRequest` matches in `context`, grouped into sections
    /// by `sectionNameKey` when given (it must then be the request's first sort key).
    ///
    /// - Throws: every error of ``ObjectContext/fetch(_:)-(FetchRequest)`` (bad entity, key
    ///   or predicate), before any row is read; `.unknownKey` for an unknown section key,
    ///   `.misuse` when the results are not sorted by it first.
    public convenience init(fetchRequest: FetchRequest, context: ObjectContext, sectionNameKey: String? = nil) throws(StrataError) {
        try self.init(fetchRequest: fetchRequest, context: context, sectionNameKey: sectionNameKey) { $0 }
    }
}
