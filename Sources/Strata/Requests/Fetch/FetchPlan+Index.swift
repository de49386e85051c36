import Foundation

extension FetchPlan {
    /// The index to walk for ordering `count` matches of `version` by the only sort key:
    /// a fresh single-property index on it, with no `[c]`, when the matches are a good part
    /// of the table (otherwise sorting them is cheaper).
    /// An index not built yet on a large table is not waited for: the matches are sorted,
    /// and the index is built in the background (``readyIndex(_:at:)``).
    func orderIndex(_ version: StoreVersion, count: Int) -> TableIndex? {
        guard sort.count == 1, !sort[0].caseInsensitive else { return nil }
        let table = version.tables[layout.index]
        guard let position = table.indexPosition(leadingWith: sort[0].property),
              table.indexes[position].properties.count == 1, count > 0, count >= table.rowCount / 8 else { return nil }
        return readyIndex(table, at: position)
    }

    /// The index at `position` of `table`'s indexes for this fetch to use: built now if need
    /// be on a small table (or when the store does not build indexes in the background);
    /// on a large one, `nil` when it is not built yet, after starting its build on a
    /// background thread (``LazyTableIndex/readyIndex(for:building:)``).
    func readyIndex(_ table: borrowing EntityTable, at position: Int) -> TableIndex? {
        let lazy = table.indexes[position]
        guard let builder = indexBuilds.backgroundIndexBuilder(rows: table.rowCount) else { return lazy.index(for: table) }
        return lazy.readyIndex(for: table, building: builder)
    }

    /// The names of the indexes this fetch could use in `version` that are being built in
    /// the background, for ``FetchStrategy/indexesBeingBuilt``.
    func indexesBeingBuilt(_ version: StoreVersion) -> [[String]] {
        let table = version.tables[layout.index]
        var wanted = Set(bound.map { Set($0.rangeConstraints.keys).union(Self.pointConstraints($0.root).keys).union(Self.prefixes($0.root).keys) } ?? [])
        if sort.count == 1 { wanted.insert(layout.properties[sort[0].property].name) }
        var names: [[String]] = []
        for (position, lazy) in table.indexes.enumerated() where lazy.isBuildingInBackground && !lazy.isBuilt {
            guard wanted.contains(layout.properties[lazy.properties[0]].name),
                  table.indexPosition(leadingWith: lazy.properties[0]) == position else { continue }
            names.append(lazy.properties.map { layout.properties[$0].name })
        }
        return names
    }

    /// The positions of `items` (store rows in ascending primary-key order) in sort order,
    /// read off `index`: values in the sort's direction, ties by ascending primary key, as
    /// the sort gives them. `nil` when an item is not a store row or not in key order.
    /// - Complexity: O(rows of the table × log matches).
    func walkOrder<Items: FetchMatchList>(_ items: Items, index: TableIndex) -> [Int]? {
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
                leaf.keys.withUnsafeBufferPointer { leafKeys in
                    for i in leafKeys.indices {
                        let key = leafKeys[i]
                        var low: Int
                        if !slots.isEmpty {
                            let slot = key - base
                            guard slot >= 0, slot < Int64(slots.count), slots[Int(slot)] >= 0 else { continue }
                            low = Int(slots[Int(slot)])
                        } else {
                            low = 0
                            var high = keys.count
                            while low < high {
                                let mid = (low + high) / 2
                                if keys[mid] < key { low = mid + 1 } else { high = mid }
                            }
                            guard low < keys.count, keys[low] == key else { continue }
                        }
                        if !ascending {
                            let entry = leaf.entry(at: i)
                            if previous.map({ IndexEntry.compareValues($0, entry) != .orderedSame }) ?? true {
                                starts.append(order.count)
                            }
                            previous = entry
                        }
                        order.append(low)
                    }
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
        let choice = indexChoice(version)
        if let candidate = choice.candidate {
            let name = layout.properties[candidate.property].name
            if let points = candidate.points {
                strategy.lookupConstraint = "\(name) in {\(points.map(PredicatePrinter.literal).joined(separator: ", "))}"
            } else if let prefix = candidate.prefix {
                strategy.lookupConstraint = "\(name) BEGINSWITH \(PredicatePrinter.literal(.string(prefix)))"
            } else {
                strategy.lookupConstraint = "\(name) in \(candidate.range)"
            }
            strategy.estimatedCandidates = candidate.estimate
            strategy.scannedRows = choice.scannedRows
            if choice.lookup != nil {
                strategy.lookupIndex = candidate.index.properties.map { layout.properties[$0].name }
            } else {
                strategy.rejectedIndex = candidate.index.properties.map { layout.properties[$0].name }
            }
        }
        if let index = orderIndex(version, count: matches) {
            strategy.orderIndex = index.properties.map { layout.properties[$0].name }
        }
        strategy.indexesBeingBuilt = indexesBeingBuilt(version)
        return strategy
    }
}

extension TableIndex {
    /// The primary keys of the entries whose first value is in `range`, in index order, or
    /// `nil` as soon as there are more than `limit`.
    /// - Complexity: O(log n + min(entries in the range, limit)).
    func keys(in range: PredicateRange, limit: Int) -> [Int64]? {
        var keys: [Int64] = []
        let complete = forEach(in: range, while: { key in
            guard keys.count < limit else { return false }
            keys.append(key)
            return true
        })
        return complete ? keys : nil
    }

    /// Calls `body` with the primary key of every entry whose first value is in `range`,
    /// in index order.
    /// - Complexity: O(log n + entries in the range).
    func forEach(in range: PredicateRange, _ body: (Int64) -> Void) {
        forEach(in: range, while: { body($0); return true })
    }

    /// Calls `body` with the primary key of every entry whose first value is in `range`, in
    /// index order, until it returns `false`; returns whether every entry was given.
    /// - Complexity: O(log n + entries given).
    @discardableResult
    func forEach(in range: PredicateRange, while body: (Int64) -> Bool) -> Bool {
        if leaves.isEmpty { return true }
        let (low, high) = leafBounds(of: range)
        guard low <= high else { return true }
        for leaf in leaves[low...high] {
            if case .integers(let values) = leaf.values, let (lowest, highest) = range.integerBounds {
                // Flat integers: binary search the first one in the range, then read on.
                var first = 0, end = values.count
                while first < end {
                    let mid = (first + end) / 2
                    if values[mid] < lowest { first = mid + 1 } else { end = mid }
                }
                for i in first..<values.count {
                    if values[i] > highest { return true }
                    if !body(leaf.keys[i]) { return false }
                }
                continue
            }
            for i in firstPosition(in: leaf, notBelow: range)..<leaf.count {
                let value = leaf.first(at: i)
                // NaN sorts after every number and matches no range: the walk is over.
                if case .double(let number) = value, number.isNaN { return true }
                if range.isBelow(value) { continue }
                if range.isAbove(value) { return true }
                if !body(leaf.keys[i]) { return false }
            }
        }
        return true
    }
}
