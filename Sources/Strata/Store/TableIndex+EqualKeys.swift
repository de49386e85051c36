extension TableIndex {
    /// The primary keys of the entries whose first value is the integer `value`, in index
    /// order (ascending, since equal values are ordered by key): the rows of a to-many
    /// relationship, through the index on their inverse key.
    ///
    /// A leaf of flat integers gives its run of matches as one slice of its keys; any other
    /// leaf (nils, compound entries) is walked entry by entry.
    /// - Complexity: O(log n + the matches).
    func keys(equalTo value: Int64) -> [Int64] {
        let range = PredicateRange(lower: .int(value), upper: .int(value))
        guard !leaves.isEmpty else { return [] }
        let (low, high) = leafBounds(of: range)
        guard low <= high else { return [] }
        var keys: [Int64] = []
        // Room for every entry of the leaves in bounds, reserved once: grown leaf by leaf, the
        // array was reallocated and moved two or three times per call.
        var capacity = 0
        for position in low...high { capacity += leaves[position].count }
        keys.reserveCapacity(capacity)
        for position in low...high {
            let leaf = leaves[position]
            guard case .integers(let values) = leaf.values else {
                for i in firstPosition(in: leaf, notBelow: range)..<leaf.count {
                    let first = leaf.first(at: i)
                    if range.isBelow(first) { continue }
                    if range.isAbove(first) { return keys }
                    keys.append(leaf.keys[i])
                }
                continue
            }
            let start = leaf.partition { values[$0] < value }, end = leaf.partition { values[$0] <= value }
            keys.append(contentsOf: leaf.keys[start..<end])
            if end < values.count { return keys }
        }
        return keys
    }
}
