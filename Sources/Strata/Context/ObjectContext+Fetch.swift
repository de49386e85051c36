extension ObjectContext {
    /// Fetches the objects matching `request`, including this context's unsaved changes
    /// unless the request says otherwise.
    ///
    /// - Throws: `.unknownEntity`, `.unknownKey` (naming the nearest key), `.typeMismatch`
    ///   (before any row is read), `.misuse` off the context's queue; `.corrupted` when a
    ///   chunk of the store's snapshot fails its first read (an encrypted chunk that does not
    ///   authenticate), instead of any result.
    /// - Complexity: O(rows of the entity) for the scan (chunks whose min/max rule them out
    ///   are skipped), O(m log m) to order m matches.
    public func fetch(_ request: FetchRequest) throws(StrataError) -> FetchedResults {
        try fetch(request, materialize: true)
    }

    /// ``fetch(_:)-(FetchRequest)``; with `materialize: false` and no batch size the objects
    /// are left for ``FetchedResults/materializeAll(_:)`` to make (the typed layer makes
    /// each object's model as the object is made).
    func fetch(_ request: FetchRequest, materialize: Bool) throws(StrataError) -> FetchedResults {
        try store.checkingDamage { () throws(StrataError) in try fetchUnchecked(request, materialize: materialize) }
    }

    private func fetchUnchecked(_ request: FetchRequest, materialize: Bool) throws(StrataError) -> FetchedResults {
        if let (probe, matches) = probedMatches(request) {
            return FetchedResults(context: self, ids: .keys(matches.keys, entity: store.idEntities[probe.layout.index]),
                                  batchSize: request.fetchBatchSize, loadValues: !request.returnsObjectsAsFaults,
                                  layoutIndex: probe.layout.index, places: nil, materialize: materialize, prefetch: [])
        }
        if let (layoutIndex, keys) = indexedPrefix(request) {
            return FetchedResults(context: self, ids: .keys(keys, entity: store.idEntities[layoutIndex]),
                                  batchSize: request.fetchBatchSize, loadValues: !request.returnsObjectsAsFaults,
                                  layoutIndex: layoutIndex, places: nil, materialize: materialize, prefetch: [])
        }
        let prefetch = request.relationshipKeyPathsForPrefetching.isEmpty ? []
            : try prefetchPlan(request.relationshipKeyPathsForPrefetching, from: try store.layout(named: request.entityName).index)
        let (plan, version, items) = try matches(request)
        // The results' keys and places are gathered straight from the matches in result order
        // (no ordered copy of the matches is made first).
        let order = plan.orderPositions(items, version: version) { _ in true }.unsafelyUnwrapped
        var keys: [Int64] = []
        var places: [FetchPlaces.Place] = []
        keys.reserveCapacity(order.kept.count)
        places.reserveCapacity(order.kept.count)
        items.withUnsafeBufferPointer { items in
            _ = plan.gather(order, step: { _ in true }) { position in
                switch items[position] {
                case .row(let key, let chunk, let row):
                    keys.append(key)
                    places.append(.init(chunk: chunk, row: row))
                case .object(let object):
                    keys.append(object.primaryKey)
                    places.append(.none)
                }
            }
        }
        let table = version.tables[plan.layout.index]
        let ids = FetchedResults.IDs.keys(keys, entity: store.idEntities[plan.layout.index])
        // Every object is made now (or by the typed layer right after): the chunks they are
        // in are decoded first on every core, rather than one by one as the objects are made.
        if request.fetchBatchSize == 0 { store.decodeInParallel(table.chunks, at: places) }
        // Before any object is made: its fault hint would hold a failed chunk's placeholder
        // columns (``FetchPlaces``).
        try store.snapshotDamage.check()
        return FetchedResults(context: self, ids: ids, batchSize: request.fetchBatchSize,
                              loadValues: !request.returnsObjectsAsFaults, layoutIndex: plan.layout.index,
                              places: FetchPlaces(lsn: version.lsn, chunks: table.chunks, places: places),
                              materialize: materialize, prefetch: prefetch)
    }

    /// The IDs of the objects matching `request`, in order.
    public func fetchObjectIDs(_ request: FetchRequest) throws(StrataError) -> [ObjectID] {
        try store.checkingDamage { () throws(StrataError) in
            if let (probe, matches) = probedMatches(request) {
                let entity = store.idEntities[probe.layout.index]
                switch matches {
                case .one(let key): return [ObjectID(entity: entity, primaryKey: key)]
                case .keys(let keys): return keys.map { ObjectID(entity: entity, primaryKey: $0) }
                }
            }
            if let (layoutIndex, keys) = indexedPrefix(request) {
                let entity = store.idEntities[layoutIndex]
                return keys.map { ObjectID(entity: entity, primaryKey: $0) }
            }
            let (plan, version, items) = try matches(request)
            return plan.order(items, version: version).map { objectID(of: $0, plan: plan) }
        }
    }

    /// How many objects match `request` (offset and limit applied).
    public func count(for request: FetchRequest) throws(StrataError) -> Int {
        try store.checkingDamage { () throws(StrataError) in
            if let (_, matches) = probedMatches(request) { return matches.count }
            let found: Int
            if let counted = try savedCount(request) {
                found = counted
            } else {
                found = try matches(request).2.count
            }
            let afterOffset = max(0, found - request.fetchOffset)
            return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
        }
    }

    /// Dictionaries of `propertiesToFetch` (every attribute by default) of the matching
    /// rows, read from the saved state (unsaved changes never count, as in Core Data).
    /// To-one relationships come back as `.int(primaryKey)`.
    public func fetchDictionaries(_ request: FetchRequest) throws(StrataError) -> [[String: AttributeValue]] {
        var saved = request
        saved.includesPendingChanges = false
        return try store.checkingDamage { () throws(StrataError) in
            let (plan, version, items) = try matches(saved)
            return plan.order(items, version: version).map { item in
                Dictionary(uniqueKeysWithValues: plan.properties.map { (plan.layout.properties[$0].name, plan.value(of: item, property: $0, version: version)) })
            }
        }
    }

    /// Runs `request` and returns what its ``FetchRequest/resultType`` asks for.
    public func execute(_ request: FetchRequest) throws(StrataError) -> FetchResult {
        switch request.resultType {
        case .objects: return .objects(try fetch(request))
        case .objectIDs: return .objectIDs(try fetchObjectIDs(request))
        case .count: return .count(try count(for: request))
        case .dictionaries: return .dictionaries(try fetchDictionaries(request))
        }
    }

    // MARK: Internals

    func objectID(of item: FetchItem, plan: FetchPlan) -> ObjectID {
        switch item {
        case .row(let key, _, _): return ObjectID(entity: store.idEntities[plan.layout.index], primaryKey: key)
        case .object(let object): return object.objectID
        }
    }

    /// The matches of `request` when a ``KeyProbe`` answers it from an index alone (offset
    /// and limit applied), or `nil` for the general path: off the context's queue (which
    /// reports the misuse), or with unsaved changes to the entity that the request includes.
    private func probedMatches(_ request: FetchRequest) -> (KeyProbe, ProbeMatches)? {
        guard isOnQueueQuickly, let probe = KeyProbe(request, store: store, cache: &probeShape),
              !includesUnsavedChanges(request, toEntity: probe.layout.index) else { return nil }
        return probe.matches(in: store).map { (probe, $0) }
    }

    /// The keys of the rows `request` asks for, read off an index (``IndexPrefix``), and
    /// their entity's layout index; `nil` for the general path: another shape, off the
    /// context's queue (which reports the misuse), unsaved changes to the entity that the
    /// request includes, or an index left to a background build.
    private func indexedPrefix(_ request: FetchRequest) -> (Int, [Int64])? {
        guard isOnQueueQuickly, let prefix = IndexPrefix(request, store: store),
              !includesUnsavedChanges(request, toEntity: prefix.layout.index) else { return nil }
        return prefix.keys(in: store).map { (prefix.layout.index, $0) }
    }

    /// Whether `request` includes this context's unsaved changes and some are to the entity
    /// whose layout index is `entity` (a fetch answered from the store alone would miss them).
    private func includesUnsavedChanges(_ request: FetchRequest, toEntity entity: Int) -> Bool {
        request.includesPendingChanges && !changed.isEmpty && changed.values.contains { $0.layoutIndex == entity }
    }

    /// The number of saved rows matching `request` (offset and limit not applied), counted
    /// without listing them (``FetchPlan/count(_:)``), when no unsaved change of this context
    /// can change it; `nil` otherwise, or when the predicate needs the reference evaluator.
    private func savedCount(_ request: FetchRequest) throws(StrataError) -> Int? {
        guard isOnQueue else {
            throw StrataError(.misuse, "fetch was called off the context's queue; call it inside perform { } or performAndWait { }.", entity: request.entityName)
        }
        guard !request.includesPendingChanges || changed.isEmpty else { return nil }
        return try FetchPlan(request, store: store).count(store.currentVersion, keepingColumns: store.options.countsKeepDecodedColumns)
    }

    private func matches(_ request: FetchRequest) throws(StrataError) -> (FetchPlan, StoreVersion, [FetchItem]) {
        guard isOnQueue else {
            throw StrataError(.misuse, "fetch was called off the context's queue; call it inside perform { } or performAndWait { }.", entity: request.entityName)
        }
        let plan = try FetchPlan(request, store: store)
        let version = store.currentVersion
        guard request.includesPendingChanges, !changed.isEmpty else { return (plan, version, plan.scan(version) ?? []) }
        // A predicate through relationships can turn on unsaved changes of related objects,
        // so unchanged rows are then evaluated through this context's view of them.
        let pending = plan.followsRelationships ? PendingObjects(changed.values) : nil
        let items = plan.scan(version, pending: pending) ?? []
        return (plan, version, applyPendingChanges(items, plan: plan))
    }

    /// Corrects store matches with this context's unsaved changes: deleted objects drop out,
    /// changed objects are tested on their current values, inserted ones are added.
    func applyPendingChanges(_ items: [FetchItem], plan: FetchPlan) -> [FetchItem] {
        let relevant = changed.values.filter { $0.layoutIndex == plan.layout.index }
        guard !relevant.isEmpty else { return items }
        let touched = Set(relevant.map(\.primaryKey))
        var result = items.filter { !touched.contains($0.primaryKey) }
        for object in relevant where object.lifecycle == .inserted || (object.lifecycle == .persisted) {
            if plan.bound?.evaluate(with: ObjectSubject(object: object)) ?? true {
                result.append(.object(object))
            }
        }
        return result
    }
}
