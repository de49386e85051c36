import Foundation

/// How a fetch finds its rows and orders them, for `strata query --explain` and tests.
public struct FetchStrategy: Sendable, Hashable, CustomStringConvertible {
    /// The index whose entries gave the candidate rows (property names, most significant
    /// first), or `nil` for a scan of every chunk the statistics do not rule out.
    public var lookupIndex: [String]?
    /// The constraint the index was searched with, such as `email in ["a@b.c", "a@b.c"]`.
    public var lookupConstraint: String?
    /// The single-property index walked to order the rows, or `nil` when they were sorted
    /// (or need no order beyond primary keys).
    public var orderIndex: [String]?

    /// Two lines, such as `rows: index (email), email in ["a@b.c", "a@b.c"]` and
    /// `order: index (createdAt) walked`.
    public var description: String {
        let rows = lookupIndex.map { "rows: index (\($0.joined(separator: ", "))), \(lookupConstraint ?? "")" } ?? "rows: chunk scan"
        let order = orderIndex.map { "order: index (\($0.joined(separator: ", "))) walked" } ?? "order: sort (or primary key)"
        return rows + "\n" + order
    }
}

extension FetchPlan {
    /// Where an index can find the candidate rows: the index, and the values or range of
    /// its first property that every match must have.
    struct IndexLookup {
        var index: TableIndex
        var property: Int
        /// Exact values (from `==` and `IN`), when the predicate gives them.
        var points: [AttributeValue]?
        var range: PredicateRange
    }

    /// The lookup the predicate allows in `version`, or `nil` (no predicate, no constraint
    /// on an indexed property, or a stale index).
    func indexLookup(_ version: StoreVersion) -> IndexLookup? {
        guard let bound else { return nil }
        let table = version.tables[layout.index]
        guard !table.indexes.isEmpty else { return nil }
        let points = Self.pointConstraints(bound.root)
        var best: IndexLookup?
        let ranges = bound.rangeConstraints
        // Values of any type pin a key (`active == YES`); ranges need orderable ones.
        for name in Set(ranges.keys).union(points.keys).sorted() {
            let range = ranges[name] ?? PredicateRange()
            guard let property = layout.propertyIndex[name], let index = table.index(leadingWith: property) else { continue }
            let lookup = IndexLookup(index: index, property: property, points: points[name], range: range)
            // Exact values beat a range; a closed range beats a half-open one.
            func rank(_ l: IndexLookup) -> Int { l.points != nil ? 2 : (l.range.lower != nil && l.range.upper != nil ? 1 : 0) }
            if best == nil || rank(lookup) > rank(best!) {
                best = lookup
            }
        }
        return best
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

    /// The primary keys of the rows the lookup finds, ascending and distinct: a superset of
    /// the matches.
    /// - Complexity: O(log n + entries found) per value or range.
    func candidates(_ lookup: IndexLookup) -> [Int64] {
        var keys: [Int64] = []
        if let points = lookup.points {
            for point in points { lookup.index.forEach(in: PredicateRange(lower: point, upper: point)) { keys.append($0) } }
        } else {
            lookup.index.forEach(in: lookup.range) { keys.append($0) }
        }
        keys.sort()
        var distinct: [Int64] = []
        distinct.reserveCapacity(keys.count)
        for key in keys where distinct.last != key { distinct.append(key) }
        return distinct
    }

    /// The matches among the lookup's candidates, in primary-key order, as a scan gives them.
    func indexScan(_ version: StoreVersion, _ lookup: IndexLookup) -> [FetchItem] {
        let table = version.tables[layout.index]
        var items: [FetchItem] = []
        for key in candidates(lookup) {
            guard let location = table.locate(key) else { continue }
            if matches(version, chunk: location.chunk, row: location.row) {
                items.append(.row(key: key, chunk: location.chunk, row: location.row))
            }
        }
        return items
    }

    /// The index to walk for ordering `count` matches of `version` by the only sort key:
    /// a fresh single-property index on it, with no `[c]`, when the matches are a good part
    /// of the table (otherwise sorting them is cheaper).
    func orderIndex(_ version: StoreVersion, count: Int) -> TableIndex? {
        guard sort.count == 1, !sort[0].caseInsensitive else { return nil }
        let table = version.tables[layout.index]
        guard let index = table.index(leadingWith: sort[0].property), index.properties.count == 1,
              count > 0, count >= table.rowCount / 8 else { return nil }
        return index
    }

    /// The positions of `items` (store rows in ascending primary-key order) in sort order,
    /// read off `index`: values in the sort's direction, ties by ascending primary key, as
    /// the sort gives them. `nil` when an item is not a store row or not in key order.
    /// - Complexity: O(rows of the table × log matches).
    func walkOrder(_ items: [FetchItem], index: TableIndex) -> [Int]? {
        var keys: [Int64] = []
        keys.reserveCapacity(items.count)
        for item in items {
            guard case .row(let key, _, _) = item, key > (keys.last ?? .min) else { return nil }
            keys.append(key)
        }
        var order: [Int] = []
        order.reserveCapacity(items.count)
        var starts: [Int] = []
        let ascending = sort[0].ascending
        var previous: IndexEntry?
        // Dense keys (the usual case: keys are allocated in order) map to positions through a
        // table; sparse ones by binary search.
        var slots: [Int32] = []
        if let first = keys.first, let last = keys.last, last - first < 4 * Int64(keys.count), keys.count < Int(Int32.max) {
            slots = [Int32](repeating: -1, count: Int(last - first) + 1)
            for (position, key) in keys.enumerated() { slots[Int(key - first)] = Int32(position) }
        }
        let base = keys.first ?? 0
        keys.withUnsafeBufferPointer { keys in
            for leaf in index.leaves {
                for entry in leaf.entries {
                    var low: Int
                    if !slots.isEmpty {
                        let slot = entry.primaryKey - base
                        guard slot >= 0, slot < Int64(slots.count), slots[Int(slot)] >= 0 else { continue }
                        low = Int(slots[Int(slot)])
                    } else {
                        low = 0
                        var high = keys.count
                        while low < high {
                            let mid = (low + high) / 2
                            if keys[mid] < entry.primaryKey { low = mid + 1 } else { high = mid }
                        }
                        guard low < keys.count, keys[low] == entry.primaryKey else { continue }
                    }
                    if !ascending, previous.map({ IndexEntry.compareValues($0, entry) != .orderedSame }) ?? true {
                        starts.append(order.count)
                    }
                    order.append(low)
                    previous = entry
                }
            }
        }
        if ascending { return order }
        // Descending: the runs of equal values in reverse, each run still by ascending key.
        var reversed: [Int] = []
        reversed.reserveCapacity(order.count)
        var end = order.count
        for start in starts.reversed() {
            reversed.append(contentsOf: order[start..<end])
            end = start
        }
        return reversed
    }

    /// The strategy a fetch of `version` uses (without a context's pending changes).
    func strategy(_ version: StoreVersion, matches: Int) -> FetchStrategy {
        var strategy = FetchStrategy()
        if let lookup = indexLookup(version) {
            strategy.lookupIndex = lookup.index.properties.map { layout.properties[$0].name }
            let name = layout.properties[lookup.property].name
            strategy.lookupConstraint = lookup.points.map { "\(name) in {\($0.map(PredicatePrinter.literal).joined(separator: ", "))}" }
                ?? "\(name) in \(lookup.range)"
        }
        if let index = orderIndex(version, count: matches) {
            strategy.orderIndex = index.properties.map { layout.properties[$0].name }
        }
        return strategy
    }
}

extension TableIndex {
    /// Calls `body` with the primary key of every entry whose first value is in `range`,
    /// in index order.
    /// - Complexity: O(log n + entries in the range).
    func forEach(in range: PredicateRange, _ body: (Int64) -> Void) {
        if leaves.isEmpty { return }
        func below(_ value: AttributeValue) -> Bool {
            guard let lower = range.lower else { return value.isNull }
            let order = IndexEntry.compare(value, lower)
            return value.isNull || order == .orderedAscending || (order == .orderedSame && !range.lowerInclusive)
        }
        func above(_ value: AttributeValue) -> Bool {
            guard let upper = range.upper else { return false }
            let order = IndexEntry.compare(value, upper)
            return order == .orderedDescending || (order == .orderedSame && !range.upperInclusive)
        }
        // The first leaf whose last first-value is not below the range.
        var low = 0, high = lastEntries.count
        while low < high {
            let mid = (low + high) / 2
            if below(lastEntries[mid].first) { low = mid + 1 } else { high = mid }
        }
        for leaf in leaves[low...] {
            for entry in leaf.entries where !below(entry.first) {
                if above(entry.first) { return }
                body(entry.primaryKey)
            }
        }
    }
}
