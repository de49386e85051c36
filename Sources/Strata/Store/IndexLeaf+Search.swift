extension IndexLeaf {
    /// The first position whose entry does not satisfy `before`, when the entries that
    /// satisfy it all come first (`count` when every one does): a binary search.
    /// - Complexity: O(log count) calls of `before`.
    func partition(_ before: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if before(mid) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Whether the leaf's values are totally ordered, so a binary search over them finds
    /// what a walk from the start finds: a flat leaf always is (it holds no NaN, or strings); a leaf of
    /// entries is when `ordered` says its index holds no double (a NaN compares equal to
    /// every number, which breaks the order a search relies on).
    func isSearchable(ordered: Bool) -> Bool {
        if case .entries = values { return ordered }
        return true
    }
}

extension TableIndex {
    /// Whether none of the indexed properties is a double, so that every leaf is totally
    /// ordered (see ``IndexLeaf/isSearchable(ordered:)``).
    static func isTotallyOrdered(_ properties: [Int], layout: EntityLayout) -> Bool {
        !properties.contains { layout.properties[$0].type == .double }
    }

    /// The first position in `leaf` whose first value is not below `range` (0 when the leaf
    /// cannot be searched; a walk from there skips the values below).
    func firstPosition(in leaf: IndexLeaf, notBelow range: PredicateRange) -> Int {
        guard leaf.isSearchable(ordered: totallyOrdered) else { return 0 }
        return leaf.partition { range.isBelow(leaf.first(at: $0)) }
    }

    /// The number of entries of `leaf` whose first value is in `range`.
    /// - Complexity: O(log entries) when the leaf can be searched, O(entries) otherwise.
    func admitted(in leaf: IndexLeaf, range: PredicateRange) -> Int {
        guard leaf.isSearchable(ordered: totallyOrdered) else {
            return (0..<leaf.count).reduce(0) { $0 + (range.admits(leaf.first(at: $1)) ? 1 : 0) }
        }
        let start = leaf.partition { range.isBelow(leaf.first(at: $0)) }
        let end = leaf.partition { !range.isAbove(leaf.first(at: $0)) }
        return max(0, end - start)
    }
}
