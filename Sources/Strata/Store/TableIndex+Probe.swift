extension TableIndex {
    /// The primary keys of the rows whose indexed values equal `values` (one per indexed
    /// property, in the index's order), ascending.
    ///
    /// Uniqueness checks and upserts call only this, so the index's layout can change
    /// behind it.
    /// - Complexity: O(log n + matches).
    func primaryKeys(equalTo values: [AttributeValue]) -> [Int64] {
        precondition(values.count == properties.count, "a probe gives one value per indexed property")
        guard !leaves.isEmpty else { return [] }
        let probe = IndexEntry(first: values[0], rest: Array(values.dropFirst()), primaryKey: .min)
        var keys: [Int64] = []
        var leafPosition = leaf(for: probe)
        while leafPosition < leaves.count {
            let entries = leaves[leafPosition].entries
            // The first entry not before the probe (the probe's key sorts before every row's).
            var low = 0, high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if IndexEntry.precedes(entries[mid], probe) { low = mid + 1 } else { high = mid }
            }
            for entry in entries[low...] {
                guard IndexEntry.compareValues(entry, probe) == .orderedSame else { return keys }
                keys.append(entry.primaryKey)
            }
            leafPosition += 1
        }
        return keys
    }

    /// Calls `body` with the primary keys of each run of two or more rows with equal indexed
    /// values, in index order (each run's keys ascending).
    /// - Complexity: O(n).
    func forEachRunOfEqualValues(_ body: ([Int64]) -> Void) {
        var run: [Int64] = []
        var previous: IndexEntry?
        for leaf in leaves {
            for entry in leaf.entries {
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
