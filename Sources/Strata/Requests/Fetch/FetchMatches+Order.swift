internal import StrataStorage

/// A fetch's matches in result order, offset and limit applied, as building its results reads
/// them (``FetchPlan``'s `ordered(_:version:keysOnly:step:)`).
enum OrderedMatches {
    /// The results' primary keys alone: all that IDs and counts are made from (8 bytes a
    /// result instead of a ``FetchItem``'s 24).
    case keys([Int64])
    /// The results as items: objects and dictionaries read their rows.
    case items([FetchItem])

    /// How many results.
    var count: Int {
        switch self {
        case .keys(let keys): return keys.count
        case .items(let items): return items.count
        }
    }
}

extension FetchPlan {
    /// Orders `matches` as ``order(_:version:step:)`` orders items, telling `step` of the same
    /// work, and gathers the results' keys alone when `keysOnly`, or their items.
    ///
    /// Memory, the point of it: `matches` is consumed, and every array of a step is let go
    /// before the next step's is made where it can be: the sort's keys and scratch before the
    /// gather, the matches and positions once the keys are gathered. A sorted fetch of the IDs
    /// of every row peaks at 8 bytes a row of matches, 8 of sort keys and 8 of positions (4 +
    /// 4 of the radix sort's scratch), then 8 of matches, 4 of positions and 8 of keys.
    ///
    /// - Returns: `nil` when `step` stopped it.
    /// - Complexity: O(n log n).
    func ordered(_ matches: consuming FetchMatches, version: StoreVersion, keysOnly: Bool,
                 step: (Int) -> Bool) -> OrderedMatches? {
        guard let order = orderPositions(matches, version: version, step: step) else { return nil }
        if case .scan = order.positions, order.kept == matches.indices {
            return keysOnly ? .keys(matches.keys) : .items(Array(matches))
        }
        if keysOnly {
            var keys: [Int64] = []
            keys.reserveCapacity(order.kept.count)
            return gather(order, step: step) { keys.append(matches.primaryKey(at: $0)) } ? .keys(keys) : nil
        }
        var items: [FetchItem] = []
        items.reserveCapacity(order.kept.count)
        return gather(order, step: step) { items.append(matches[$0]) } ? .items(items) : nil
    }
}
