extension FetchPlan {
    /// Where an index can find the candidate rows: the index, and the values or range of
    /// its first property that every match must have.
    struct IndexLookup {
        var index: TableIndex
        var property: Int
        /// Exact values (from `==` and `IN`), when the predicate gives them.
        var points: [AttributeValue]?
        var range: PredicateRange
        /// The prefix a `BEGINSWITH` gave the range, when it did.
        var prefix: String?
        /// The entries of the index in the range or at the points: the candidates.
        var estimate: Int
        /// Whether the predicate is exactly the lookup's constraint, so every candidate
        /// matches and none needs checking (see ``isCovered(by:)``).
        var covered: Bool
        /// The keys at the points in index order, when the planner read them while
        /// estimating (few enough, see ``pointKeysLimit``): the candidates need no second
        /// search of the index.
        var pointKeys: [Int64]? = nil
    }

    /// Up to how many entries at a lookup's points the planner reads while estimating, so
    /// that a point lookup (such as `email == %@` on a unique index) searches the index once.
    static let pointKeysLimit = 64

    /// The planner's decision: the lookup it would use (when an index serves the predicate),
    /// whether it uses it, and the rows a scan would read instead.
    struct IndexChoice {
        var candidate: IndexLookup?
        var scannedRows: Int?
        /// The chunks a scan would read.
        var scannedChunks = 0
        /// Whether the scan would run the compiled filter (rather than evaluate each row).
        var compiled = true
        /// The lookup to run, or `nil` for a scan.
        var lookup: IndexLookup? {
            guard let candidate, let scannedRows else { return nil }
            return FetchPlan.indexIsCheaper(candidate, scannedRows: scannedRows, chunks: scannedChunks, compiled: compiled) ? candidate : nil
        }
    }

    /// Relative cost of each way to find matches: per row of a scan's compiled filter over a
    /// column (or of the row evaluator, when the predicate does not compile), per chunk the
    /// scan reads, and per index candidate whose predicate needs no check (read the key,
    /// mark it, locate its row) or is checked with the row evaluator. From the release
    /// benchmarks (`indexed-age-ids`, `predicate-ids`), rounded.
    static let scanRowCost = 2, evaluatedRowCost = 60, scanChunkCost = 50
    static let coveredCandidateCost = 5, checkedCandidateCost = 60

    /// Whether reading `lookup`'s candidates costs less than scanning `scannedRows` rows in
    /// `chunks` chunks.
    static func indexIsCheaper(_ lookup: IndexLookup, scannedRows: Int, chunks: Int, compiled: Bool) -> Bool {
        let index = lookup.estimate * (lookup.covered ? coveredCandidateCost : checkedCandidateCost)
        return index < scannedRows * (compiled ? scanRowCost : evaluatedRowCost) + chunks * scanChunkCost
    }

    /// The lookup the predicate allows in `version` (the single constraint on an indexed
    /// property that leaves the fewest candidates), and the rows a scan would read. Builds
    /// each index it considers if this is its first use, or on a large table leaves it out
    /// and has it built in the background (``readyIndex(_:at:)``).
    func indexChoice(_ version: StoreVersion) -> IndexChoice {
        guard let bound else { return IndexChoice() }
        let table = version.tables[layout.index]
        guard !table.indexes.isEmpty else { return IndexChoice() }
        let points = Self.pointConstraints(bound.root)
        var ranges = bound.rangeConstraints
        // A `BEGINSWITH` gives a string range where no comparison gives one.
        let prefixes = Self.prefixes(bound.root).filter { ranges[$0.key] == nil }
        for (name, prefix) in prefixes {
            ranges[name] = PredicateRange(lower: .string(prefix), upper: .string(prefix + "\u{10FFFF}"))
        }
        var best: IndexLookup?
        // Values of any type pin a key (`active == YES`); ranges need orderable ones.
        for name in Set(ranges.keys).union(points.keys).sorted() {
            let range = ranges[name] ?? PredicateRange()
            guard let property = layout.propertyIndex[name], let position = table.indexPosition(leadingWith: property) else { continue }
            if let chosen = best, chosen.estimate == 0 { break }
            // An index not built yet on a large table is built in the background; this fetch scans.
            guard let index = readyIndex(table, at: position) else { continue }
            var lookup = IndexLookup(index: index, property: property, points: points[name], range: range,
                                     prefix: points[name] == nil ? prefixes[name] : nil, estimate: 0, covered: false)
            if let values = lookup.points {
                // A few points with few entries each: read their keys now, once.
                var keys: [Int64]? = values.count <= Self.pointKeysLimit ? [] : nil
                for value in values where keys != nil {
                    let range = PredicateRange(lower: value, upper: value)
                    if let found = index.keys(in: range, limit: Self.pointKeysLimit - keys!.count) { keys! += found } else { keys = nil }
                }
                lookup.pointKeys = keys
                lookup.estimate = keys?.count
                    ?? values.reduce(0) { total, value in total + index.count(in: PredicateRange(lower: value, upper: value)) }
            } else {
                lookup.estimate = index.count(in: range)
            }
            lookup.covered = index.properties.count == 1 && isCovered(by: lookup, name: name)
            if best == nil || lookup.estimate < best!.estimate { best = lookup }
        }
        guard let best else { return IndexChoice() }
        guard !skipper.constraints.isEmpty else {
            // No statistics to consult: a scan reads every chunk.
            return IndexChoice(candidate: best, scannedRows: table.rowCount, scannedChunks: table.chunks.count, compiled: filter != nil)
        }
        var choice = IndexChoice(candidate: best, scannedRows: 0)
        for chunk in table.chunks where !skipper.canSkip(chunk) {
            choice.scannedRows! += chunk.count
            choice.scannedChunks += 1
        }
        choice.compiled = filter != nil
        return choice
    }

    /// The lookup to run in `version`, or `nil` for a scan.
    func indexLookup(_ version: StoreVersion) -> IndexLookup? { indexChoice(version).lookup }

    /// Whether the predicate is exactly `lookup`'s constraint on the integer or date
    /// attribute `name`: one `==` or `IN` when the lookup has points, otherwise an `AND` of
    /// `<`, `<=`, `>`, `>=` and `BETWEEN` against constants of the attribute's own type. Then
    /// an entry in the range is a match, as the index orders values exactly as the
    /// comparisons do (integers and dates have no NaN and no case).
    func isCovered(by lookup: IndexLookup, name: String) -> Bool {
        guard let bound, let type = layout.properties[lookup.property].type, type.isInteger || type == .date else { return false }
        func sameType(_ value: AttributeValue) -> Bool {
            switch value {
            case .int: return type.isInteger
            case .date: return type == .date
            default: return false
            }
        }
        func leaf(_ node: BoundNode, points: Bool) -> Bool {
            guard case .comparison(let c) = node, c.modifier == .direct, c.options.isEmpty,
                  case .path(let path) = c.left, path.steps.count == 1, path.endsAtAttribute, path.steps[0].name == name else { return false }
            switch (c.op, c.right) {
            case (.equalTo, .constant(let v)): return points && sameType(v)
            case (.in, .list(let values)): return points && values.allSatisfy(sameType)
            case (.lessThan, .constant(let v)), (.lessThanOrEqualTo, .constant(let v)),
                 (.greaterThan, .constant(let v)), (.greaterThanOrEqualTo, .constant(let v)):
                return !points && sameType(v)
            case (.between, .list(let values)): return !points && values.count == 2 && values.allSatisfy(sameType)
            default: return false
            }
        }
        func all(_ node: BoundNode) -> Bool {
            if case .and(let l, let r) = node { return all(l) && all(r) }
            return leaf(node, points: false)
        }
        return lookup.points != nil ? leaf(bound.root, points: true) : all(bound.root)
    }

    /// For each attribute that an `AND` of comparisons pins to a list of values (`==` or
    /// `IN`, without `[c]`/`[d]`), those values: every match has one of them.
    static func pointConstraints(_ node: BoundNode) -> [String: [AttributeValue]] {
        switch node {
        case .and(let l, let r):
            return pointConstraints(l).merging(pointConstraints(r)) { a, b in a.count <= b.count ? a : b }
        case .comparison(let c):
            guard c.modifier == .direct, c.options.isEmpty, case .path(let path) = c.left, path.steps.count == 1,
                  path.endsAtAttribute else { return [:] }
            switch (c.op, c.right) {
            case (.equalTo, .constant(let v)) where !v.isNull: return [path.steps[0].name: [v]]
            case (.in, .list(let values)) where !values.isEmpty && !values.contains(where: \.isNull):
                return [path.steps[0].name: values]
            default: return [:]
            }
        default:
            return [:]
        }
    }

    /// For each string attribute that an `AND` of comparisons requires to begin with a
    /// non-empty constant (`BEGINSWITH` without `[c]`/`[d]`), that prefix. The index range
    /// from the prefix to the prefix followed by the largest scalar holds every string that
    /// begins with it: a superset of the matches (the candidates are checked).
    static func prefixes(_ node: BoundNode) -> [String: String] {
        switch node {
        case .and(let l, let r):
            return prefixes(l).merging(prefixes(r)) { a, _ in a }
        case .comparison(let c):
            guard c.op == .beginsWith, c.modifier == .direct, c.options.isEmpty, case .path(let path) = c.left,
                  path.steps.count == 1, path.endsAtAttribute, case .constant(.string(let prefix)) = c.right,
                  !prefix.isEmpty else { return [:] }
            return [path.steps[0].name: prefix]
        default:
            return [:]
        }
    }

    /// The primary keys of the rows the lookup finds, ascending and distinct: a superset of
    /// the matches (exactly the matches when the lookup is covered).
    /// - Complexity: O(log n + entries found) per value or range, plus O(key span ÷ 64)
    ///   when the keys are dense, O(found × log found) otherwise.
    func candidates(_ lookup: IndexLookup, in table: borrowing EntityTable) -> [Int64] {
        var keys: [Int64] = []
        keys.reserveCapacity(lookup.estimate)
        if let found = lookup.pointKeys {
            keys = found
        } else if let points = lookup.points {
            for point in points { lookup.index.forEach(in: PredicateRange(lower: point, upper: point)) { keys.append($0) } }
        } else {
            lookup.index.forEach(in: lookup.range) { keys.append($0) }
        }
        guard let first = table.chunks.first?.firstKey, let last = table.chunks.last?.lastKey, last >= first else { return [] }
        let span = UInt64(bitPattern: last &- first) &+ 1
        if keys.count > 64, span / 64 <= UInt64(keys.count) * 4 {
            // Dense keys: a bitmap over the table's key span sorts and deduplicates at once.
            var words = [UInt64](repeating: 0, count: Int((span + 63) / 64))
            for key in keys {
                let bit = UInt64(bitPattern: key &- first)
                words[Int(bit >> 6)] |= 1 << (bit & 63)
            }
            var sorted: [Int64] = []
            sorted.reserveCapacity(keys.count)
            for (w, word) in words.enumerated() where word != 0 {
                var bits = word
                while bits != 0 {
                    sorted.append(first &+ Int64(w * 64 + bits.trailingZeroBitCount))
                    bits &= bits &- 1
                }
            }
            return sorted
        }
        keys.sort()
        var distinct: [Int64] = []
        distinct.reserveCapacity(keys.count)
        for key in keys where distinct.last != key { distinct.append(key) }
        return distinct
    }

    /// The matches among the lookup's candidates, in primary-key order, as a scan gives them.
    /// - Complexity: O(candidates × log rows per chunk), plus the predicate's cost per
    ///   candidate unless the lookup is covered.
    func indexScan(_ version: StoreVersion, _ lookup: IndexLookup) -> [FetchItem] {
        indexScan(version, lookup, into: [FetchItem].self)
    }

    /// The index's candidates that match, as ``indexScan(_:_:)`` finds them, listed in a `Sink`.
    func indexScan<Sink: FetchMatchSink>(_ version: StoreVersion, _ lookup: IndexLookup, into: Sink.Type) -> Sink {
        version.withTable(layout.index) { table in
            let keys = candidates(lookup, in: table)
            var items = Sink()
            items.reserveCapacity(keys.count)
            // Candidates ascend, so the chunk only moves forward: to the next one, or by a
            // binary search on the chunks' last keys (a few candidates far apart must not
            // read every chunk between them). A chunk's keys are read once it holds one.
            var c = 0, rowStart = 0, loaded = -1
            let chunks = table.chunks
            var chunkKeys: [Int64] = []
            for key in keys {
                if c < chunks.count, chunks[c].lastKey < key {
                    c += 1
                    if c < chunks.count, chunks[c].lastKey < key {
                        var high = chunks.count
                        while c < high {
                            let mid = (c + high) / 2
                            if chunks[mid].lastKey < key { c = mid + 1 } else { high = mid }
                        }
                    }
                    rowStart = 0
                }
                guard c < chunks.count else { break }
                if loaded != c {
                    // The key column alone of a chunk not decoded yet (the index's build
                    // decoded it already): a fetch of IDs decodes nothing else.
                    chunkKeys = chunks[c].primaryKeysAlone
                    loaded = c
                }
                var low = rowStart, high = chunkKeys.count
                while low < high {
                    let mid = (low + high) / 2
                    if chunkKeys[mid] < key { low = mid + 1 } else { high = mid }
                }
                guard low < chunkKeys.count, chunkKeys[low] == key else { continue }
                rowStart = low + 1
                if lookup.covered || matches(version, chunk: c, row: low) {
                    items.append(key: key, chunk: c, row: low)
                }
            }
            return items
        }
    }
}

extension TableIndex {
    /// The number of entries whose first value is in `range`.
    /// - Complexity: O(log n + leaves in the range) (O(leaf size) more when the index holds
    ///   doubles, whose edge leaves are walked).
    func count(in range: PredicateRange) -> Int {
        guard !leaves.isEmpty else { return 0 }
        let (low, high) = leafBounds(of: range)
        guard low <= high else { return 0 }
        func admitted(_ leaf: IndexLeaf) -> Int { self.admitted(in: leaf, range: range) }
        if low == high { return admitted(leaves[low]) }
        // The two edge leaves counted entry by entry, the ones between whole.
        var total = admitted(leaves[low]) + admitted(leaves[high])
        for leaf in leaves[(low + 1)..<high] { total += leaf.count }
        return total
    }

    /// The first and last leaves that can hold entries whose first value is in `range`
    /// (first > last when none can).
    func leafBounds(of range: PredicateRange) -> (Int, Int) {
        var low = 0, high = lastEntries.count
        while low < high {
            let mid = (low + high) / 2
            if range.isBelow(lastEntries[mid].first) { low = mid + 1 } else { high = mid }
        }
        // The last leaf whose first entry is not above the range.
        var a = low, b = leaves.count
        while a < b {
            let mid = (a + b) / 2
            if range.isAbove(leaves[mid].first(at: 0)) { b = mid } else { a = mid + 1 }
        }
        return (low, min(a - 1, leaves.count - 1))
    }
}

extension PredicateRange {
    /// Whether an index value sorts before the range (nil always does), in the index order.
    func isBelow(_ value: AttributeValue) -> Bool {
        guard let lower else { return value.isNull }
        let order = IndexEntry.compare(value, lower)
        return value.isNull || order == .orderedAscending || (order == .orderedSame && !lowerInclusive)
    }

    /// Whether an index value sorts after the range, in the index order.
    func isAbove(_ value: AttributeValue) -> Bool {
        guard let upper else { return false }
        let order = IndexEntry.compare(value, upper)
        return order == .orderedDescending || (order == .orderedSame && !upperInclusive)
    }

    /// Whether an index value is in the range, in the index order.
    func admits(_ value: AttributeValue) -> Bool { !isBelow(value) && !isAbove(value) }

    /// The smallest and largest integers in the range when both bounds (where there are
    /// any) are integers: the range over flat integer values, which are never nil.
    var integerBounds: (Int64, Int64)? {
        var lowest = Int64.min, highest = Int64.max
        if let lower {
            guard case .int(let value) = lower else { return nil }
            if lowerInclusive { lowest = value } else if value == .max { return (1, 0) } else { lowest = value + 1 }
        }
        if let upper {
            guard case .int(let value) = upper else { return nil }
            if upperInclusive { highest = value } else if value == .min { return (1, 0) } else { highest = value - 1 }
        }
        return (lowest, highest)
    }
}
