/// A fetch request checked against a store: entity resolved, predicate bound and compiled,
/// sort keys and fetched properties resolved. Every error surfaces here, before a row is read.
struct FetchPlan: Sendable {
    struct Sort: Sendable {
        var property: Int
        var type: AttributeType?
        var ascending: Bool
        var caseInsensitive: Bool
    }

    let request: FetchRequest
    let layout: EntityLayout
    let bound: BoundPredicate?
    let filter: ColumnFilter?
    let skipper: ChunkSkipper
    let sort: [Sort]
    let properties: [Int]
    /// Whether a scan with a compiled filter may spread its chunks over the cores, and how
    /// many chunks each thread must get at least (the store's options).
    let parallel: (allowed: Bool, minimumChunksPerThread: Int)
    /// The store's options, for where an index found pending is built
    /// (``PersistentStore/Options/backgroundIndexBuilder(rows:)``).
    let indexBuilds: PersistentStore.Options

    init(_ request: FetchRequest, store: PersistentStore) throws(StrataError) {
        self.request = request
        parallel = (store.options.scansInParallel, store.options.parallelScanMinimumChunks)
        indexBuilds = store.options
        let resolved = try store.layout(named: request.entityName)
        layout = resolved
        guard request.fetchLimit >= 0, request.fetchOffset >= 0, request.fetchBatchSize >= 0 else {
            throw StrataError(.misuse, "fetchLimit, fetchOffset and fetchBatchSize must not be negative.", entity: request.entityName)
        }
        let bound = try request.predicate?.bound(to: resolved.entity.name, in: store.schema)
        self.bound = bound
        filter = bound.flatMap { ColumnFilter.compile($0.root, layout: resolved) }
        skipper = ChunkSkipper(bound: bound, layout: resolved)
        func property(_ key: String, role: String) throws(StrataError) -> Int {
            if let index = resolved.propertyIndex[key] { return index }
            let names = resolved.properties.map(\.name)
            // The same "did you mean" as an unknown key in the predicate (a transposition
            // such as 'nmae' is within reach; Schema.nearestName allows only a third).
            let suggestion = PredicateBinder.nearest(to: key, among: names)
            throw StrataError(.unknownKey, "Cannot \(role) by '\(key)': \(resolved.entity.name) has no attribute or to-one relationship of that name" + (suggestion.map { "; did you mean '\($0)'?" } ?? ".") + " Its keys are: \(names.joined(separator: ", ")).", entity: resolved.entity.name, key: key)
        }
        var sort: [Sort] = []
        for key in request.sortKeys {
            let index = try property(key.key, role: "sort")
            sort.append(Sort(property: index, type: resolved.properties[index].type, ascending: key.ascending,
                             caseInsensitive: key.caseInsensitive))
        }
        self.sort = sort
        var properties: [Int] = []
        for key in request.propertiesToFetch ?? resolved.properties.filter({ $0.type != nil }).map(\.name) {
            properties.append(try property(key, role: "fetch"))
        }
        self.properties = properties
    }

    /// Whether row `row` of chunk `chunk` in `version` matches (the reference path), seen
    /// through a context's unsaved changes when `pending` is given.
    func matches(_ version: StoreVersion, chunk: Int, row: Int, pending: PendingObjects? = nil) -> Bool {
        guard let bound else { return true }
        let subject = RowSubject(version: version, table: layout.index, location: (chunk, row))
        if let pending { return bound.evaluate(with: PendingRowSubject(row: subject, pending: pending)) }
        return bound.evaluate(with: subject)
    }

    /// Whether the predicate follows a relationship (a key path or aggregate through one),
    /// so that a row's match can depend on other objects.
    var followsRelationships: Bool {
        func operand(_ o: BoundOperand) -> Bool {
            switch o {
            case .constant, .list: return false
            case .path(let path): return path.steps.count > 1 || path.steps.first?.kind != .attribute
            case .aggregate: return true
            }
        }
        func node(_ n: BoundNode) -> Bool {
            switch n {
            case .constant: return false
            case .comparison(let c): return operand(c.left) || operand(c.right)
            case .and(let a, let b), .or(let a, let b): return node(a) || node(b)
            case .not(let a): return node(a)
            }
        }
        return bound.map { node($0.root) } ?? false
    }
}

/// A matching row or object, before ordering.
enum FetchItem {
    /// Row `row` of chunk `chunk` of the version scanned, with its key. The place is kept in
    /// two 32-bit numbers (a table has far fewer chunks, a chunk far fewer rows): an item
    /// takes 24 bytes instead of 32, and a fetch holds one per match until its results are
    /// built (a tenth of the peak of a sorted fetch of every row).
    case row(key: Int64, chunk: UInt32, row: UInt32)
    case object(ManagedObject)

    /// Row `row` of chunk `chunk`, with its key.
    @inline(__always) static func at(key: Int64, chunk: Int, row: Int) -> FetchItem {
        .row(key: key, chunk: UInt32(chunk), row: UInt32(row))
    }

    var primaryKey: Int64 {
        switch self {
        case .row(let key, _, _): return key
        case .object(let object): return object.primaryKey
        }
    }
}

/// Progress of a scan: rows looked at so far, rows in all, matches so far.
struct ScanProgress: Sendable {
    var scanned: Int
    var total: Int
    var matches: Int
}

extension FetchPlan {
    /// Scans `version` chunk by chunk: skips chunks whose statistics rule them out, runs the
    /// compiled filter (or the reference evaluator) on the rest, and reports after each chunk.
    /// When an index covers a constraint of the predicate (and there are no pending
    /// changes), reads the index's candidates instead and reports once.
    ///
    /// - Parameters:
    ///   - pending: a context's unsaved objects, when rows must be seen through them (a
    ///     predicate that follows relationships can depend on changed related objects).
    ///   - onChunk: called after every chunk; returning `false` stops the scan.
    /// - Returns: the matches in primary-key order, or `nil` when stopped.
    /// - Complexity: O(rows) for compiled predicates; relationship paths add the cost of
    ///   following them.
    func scan(_ version: StoreVersion, pending: PendingObjects? = nil,
              onChunk: (ScanProgress) -> Bool = { _ in true }) -> [FetchItem]? {
        scan(version, pending: pending, into: [FetchItem].self, onChunk: onChunk)
    }

    /// Scans as ``scan(_:pending:onChunk:)`` does, listing the matches in a `Sink` (the
    /// compact ``FetchMatches`` for an asynchronous fetch).
    func scan<Sink: FetchMatchSink>(_ version: StoreVersion, pending: PendingObjects? = nil, into: Sink.Type,
                                    onChunk: (ScanProgress) -> Bool = { _ in true }) -> Sink? {
        let table = version.tables[layout.index]
        if pending == nil, let lookup = indexLookup(version) {
            let items = indexScan(version, lookup, into: Sink.self)
            return onChunk(ScanProgress(scanned: table.rowCount, total: table.rowCount, matches: items.count)) ? items : nil
        }
        var items = Sink()
        if bound == nil { items.reserveCapacity(table.rowCount) }
        var progress = ScanProgress(scanned: 0, total: table.rowCount, matches: 0)
        guard bound == nil || filter != nil else {
            // The reference evaluator (it may follow relationships): one chunk at a time.
            for (c, chunk) in table.chunks.enumerated() {
                if !skipper.canSkip(chunk) {
                    let keys = chunk.primaryKeys
                    for row in keys.indices where matches(version, chunk: c, row: row, pending: pending) {
                        items.append(key: keys[row], chunk: c, row: row)
                    }
                }
                progress.scanned += chunk.count
                progress.matches = items.count
                if !onChunk(progress) { return nil }
            }
            return items
        }
        // The columns a compiled filter reads, and the keys: a chunk not decoded yet decodes
        // only these (TableChunk.someColumns). Chunks are read in batches, each batch spread
        // over the cores (ParallelChunks); the matches are then appended, and progress
        // reported, chunk by chunk in order.
        let filterColumns = filter?.columns ?? []
        let read = [EntityLayout.primaryKeyColumn] + filterColumns.filter { $0 != EntityLayout.primaryKeyColumn }
        let chunks = table.chunks
        let threads = ParallelChunks.threads(chunks: chunks.count, parallel: parallel.allowed,
                                             minimumPerThread: parallel.minimumChunksPerThread)
        let batch = threads == 1 ? 1 : threads * parallel.minimumChunksPerThread
        var start = 0
        while start < chunks.count {
            let (first, end) = (start, min(start + batch, chunks.count))
            let found = ParallelChunks.map(end - first, threads: threads) { i in
                matchingRows(chunks[first + i], read: read, filterColumns: filterColumns)
            }
            for (i, rows) in found.enumerated() {
                let c = start + i
                if let rows {
                    if items.capacity - items.count < rows.count {
                        // Room for this chunk's rows, and for the rest at the rate seen so far
                        // (this chunk's included) with an eighth more: a list that grows again
                        // copies every match found so far (at ten million rows, one chunk's
                        // rate ran short near the end and copied 12 MB into fresh pages).
                        let seen = progress.scanned + chunks[c].count
                        let rate = Double(items.count + rows.matches + 1) / Double(max(seen, 1))
                        let rest = Double(table.rowCount - seen) * rate
                        items.reserveCapacity(items.count + rows.count + Int(rest * 1.125))
                    }
                    rows.forEachMatch { row, key in items.append(key: key, chunk: c, row: row) }
                }
                progress.scanned += chunks[c].count
                progress.matches = items.count
                if !onChunk(progress) { return nil }
            }
            start = end
        }
        return items
    }

    /// One chunk's part of a compiled scan: which rows match and their keys, or `nil` when
    /// its statistics rule it out. Safe to call on several threads at once
    /// (``ParallelChunks``).
    ///
    /// The key column is read only when the chunk's keys are not dense (``ChunkMatches``):
    /// dense keys are computed, so a scan of a chunk not decoded yet decodes the filter's
    /// columns alone (and no column without a filter).
    private func matchingRows(_ chunk: TableChunk, read: [Int], filterColumns: [Int]) -> ChunkMatches? {
        guard !skipper.canSkip(chunk) else { return nil }
        let dense = ChunkMatches.hasDenseKeys(chunk)
        guard let filter else {
            let keys = dense ? nil : chunk.someColumns(read).primaryKeys
            return ChunkMatches(count: chunk.count, firstKey: chunk.firstKey, keys: keys, mask: nil, matches: chunk.count)
        }
        let columns = chunk.someColumns(dense ? filterColumns : read)
        let mask = filter.evaluate(columns, count: chunk.count)
        return ChunkMatches(count: chunk.count, firstKey: chunk.firstKey, keys: dense ? nil : columns.primaryKeys,
                            mask: mask, matches: Self.trueCount(mask))
    }

    /// How many elements of `mask` are `true`.
    private static func trueCount(_ mask: [Bool]) -> Int {
        mask.withUnsafeBufferPointer { mask in
            // A Bool is one byte, 0 or 1: summing them has no branch and vectorizes.
            var matches = 0
            for match in mask { matches &+= Int(unsafeBitCast(match, to: UInt8.self)) }
            return matches
        }
    }

    /// How many rows of `version` match, as many as ``scan(_:pending:onChunk:)`` (no pending
    /// changes) would list, without listing them: a compiled filter reads only the columns it
    /// compares (`TableChunk.someColumns`, not the keys), no predicate reads no column, an
    /// index lookup counts its candidates.
    ///
    /// With `keepingColumns` false, the columns decoded for it are let go chunk by chunk
    /// (`TableChunk.passingColumns`; ``PersistentStore/Options/countsKeepDecodedColumns``).
    ///
    /// - Returns: `nil` when the predicate needs the reference evaluator (scan instead).
    /// - Complexity: O(rows of the chunks not skipped) for a compiled filter.
    func count(_ version: StoreVersion, keepingColumns: Bool = true) -> Int? {
        let table = version.tables[layout.index]
        if let lookup = indexLookup(version) { return indexScan(version, lookup).count }
        let filter = self.filter
        guard bound == nil || filter != nil else { return nil }
        let read = filter?.columns ?? []
        guard let filter else {
            return table.chunks.reduce(0) { $0 + (skipper.canSkip($1) ? 0 : $1.count) }
        }
        let chunks = table.chunks
        let threads = ParallelChunks.threads(chunks: chunks.count, parallel: parallel.allowed,
                                             minimumPerThread: parallel.minimumChunksPerThread)
        let counts = ParallelChunks.map(chunks.count, threads: threads) { c in
            let chunk = chunks[c]
            guard !skipper.canSkip(chunk) else { return 0 }
            let columns = keepingColumns ? chunk.someColumns(read) : chunk.passingColumns(read)
            return Self.trueCount(filter.evaluate(columns, count: chunk.count))
        }
        return counts.reduce(0, +)
    }

    /// The primary keys of the rows of `version` that match, ascending (no pending changes,
    /// no progress): what a batch request works on.
    /// - Complexity: O(rows of the entity); without a predicate, a copy of the key columns.
    func matchingKeys(_ version: StoreVersion) -> [Int64] {
        guard bound == nil else { return (scan(version) ?? []).map(\.primaryKey) }
        let table = version.tables[layout.index]
        return [Int64](unsafeUninitializedCapacity: table.rowCount) { buffer, initialized in
            for chunk in table.chunks {
                chunk.primaryKeys.withUnsafeBufferPointer { keys in
                    let end = min(initialized + keys.count, buffer.count)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[initialized..<end]).initialize(from: keys)
                    initialized = end
                }
            }
        }
    }
}
