extension TableIndex {
    /// The primary keys of the rows whose indexed values equal `values` (one per indexed
    /// property, most significant first), ascending: the probe a uniqueness check makes.
    /// Values compare as a sorted fetch compares them (no `[c]`), so `nil` matches `nil`.
    /// - Complexity: O(log n + matches).
    func primaryKeys(matching values: [AttributeValue]) -> [Int64] {
        guard values.count == properties.count, let head = values.first, !leaves.isEmpty else { return [] }
        let probe = IndexEntry(first: head, rest: Array(values.dropFirst()), primaryKey: .min)
        var keys: [Int64] = []
        let first = leaf(for: probe)
        for position in first..<leaves.count {
            let leaf = leaves[position]
            // In the first leaf, a binary search skips the entries before the values.
            let start = position == first && leaf.isSearchable(ordered: totallyOrdered)
                ? leaf.partition { IndexEntry.compareValues(leaf.entry(at: $0), probe) == .orderedAscending } : 0
            for i in start..<leaf.count {
                switch IndexEntry.compareValues(leaf.entry(at: i), probe) {
                case .orderedAscending: continue
                case .orderedSame: keys.append(leaf.keys[i])
                case .orderedDescending: return keys
                }
            }
        }
        return keys
    }

    /// ``primaryKeys(matching:)`` under the name uniqueness checks and upserts call: they call
    /// only these two functions, so the index's layout can change behind them.
    /// - Complexity: O(log n + matches).
    ///
    /// Once a key probe has hashed the index's first values (``HashedKeys``), a first value
    /// that no entry has, or (for a one-property index) that one entry has, is answered from
    /// them without a search.
    func primaryKeys(equalTo values: [AttributeValue]) -> [Int64] {
        precondition(values.count == properties.count, "a probe gives one value per indexed property")
        if let hashedKeys, let key = ProbeKey(values[0]) {
            switch hashedKeys.match(key) {
            case .none?: return []
            case .one(let primaryKey)? where properties.count == 1: return [primaryKey]
            default: break
            }
        }
        return primaryKeys(matching: values)
    }

    /// Calls `body` with the primary keys of each run of two or more rows with equal indexed
    /// values, in index order (each run's keys ascending).
    /// - Complexity: O(n).
    func forEachRunOfEqualValues(_ body: ([Int64]) -> Void) {
        var run: [Int64] = []
        var previous: IndexEntry?
        for leaf in leaves {
            for i in 0..<leaf.count {
                let entry = leaf.entry(at: i)
                if let last = previous, IndexEntry.compareValues(last, entry) == .orderedSame {
                    if run.isEmpty { run.append(last.primaryKey) }
                    run.append(entry.primaryKey)
                } else {
                    if run.count > 1 { body(run) }
                    run.removeAll(keepingCapacity: true)
                }
                previous = entry
            }
        }
        if run.count > 1 { body(run) }
    }
}
