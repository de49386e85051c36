extension TableIndex {
    /// The primary keys of the rows whose indexed values equal `values` (one per indexed
    /// property, most significant first), ascending: the probe a uniqueness check makes.
    /// Values compare as a sorted fetch compares them (no `[c]`), so `nil` matches `nil`.
    /// - Complexity: O(log n + matches).
    func primaryKeys(matching values: [AttributeValue]) -> [Int64] {
        guard values.count == properties.count, let head = values.first, !leaves.isEmpty else { return [] }
        let probe = IndexEntry(first: head, rest: Array(values.dropFirst()), primaryKey: .min)
        var keys: [Int64] = []
        for position in leaf(for: probe)..<leaves.count {
            let leaf = leaves[position]
            for i in 0..<leaf.count {
                switch IndexEntry.compareValues(leaf.entry(at: i), probe) {
                case .orderedAscending: continue
                case .orderedSame: keys.append(leaf.keys[i])
                case .orderedDescending: return keys
                }
            }
        }
        return keys
    }
}
