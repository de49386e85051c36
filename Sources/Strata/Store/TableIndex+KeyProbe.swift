/// A value a key probe looks up in the first property of an index, typed so that the search
/// compares it with the leaves' values directly: no ``AttributeValue`` made, matched and
/// compared through the general value order per step.
///
/// Its order against an index value is the index order (``IndexEntry/compare(_:_:)``): nil
/// before every value, strings in ``StringOrder`` (under which equal is `String`'s `==`, the
/// predicate's `==` without `[c]`/`[d]`), integers numerically.
enum ProbeKey: Sendable, Hashable {
    /// A string attribute's value.
    case string(String)
    /// An integer attribute's value.
    case integer(Int64)

    /// The key of a string or integer value; `nil` for others (nil among them).
    init?(_ value: AttributeValue) {
        switch value {
        case .string(let string): self = .string(string)
        case .int(let integer): self = .integer(integer)
        default: return nil
        }
    }

    /// The key as the value the predicate holds, for messages and `--explain`.
    var value: AttributeValue {
        switch self {
        case .string(let string): return .string(string)
        case .integer(let integer): return .int(integer)
        }
    }

    /// Whether the index value `value` sorts before the key.
    @inline(__always)
    func isAbove(_ value: AttributeValue) -> Bool {
        switch (self, value) {
        case (_, .null): return true
        case (.string(let key), .string(let other)): return StringOrder.compare(other, key) == .orderedAscending
        case (.integer(let key), .int(let other)): return other < key
        default: return IndexEntry.compare(value, self.value) == .orderedAscending
        }
    }

    /// Whether the index value `value` equals the key.
    @inline(__always)
    func isEqual(to value: AttributeValue) -> Bool {
        switch (self, value) {
        case (_, .null): return false
        case (.string(let key), .string(let other)): return other == key
        case (.integer(let key), .int(let other)): return other == key
        default: return IndexEntry.compare(value, self.value) == .orderedSame
        }
    }
}

extension TableIndex {
    /// The primary keys of the entries whose first value is `key`, ascending, or `nil` when
    /// there are more than `limit` of them or the index's order cannot be searched (a
    /// compound index with a double: see ``IndexLeaf/isSearchable(ordered:)``).
    ///
    /// One binary search over the leaves' last entries, one inside the leaf, then a walk
    /// over the equal entries; every comparison is typed (``ProbeKey``).
    /// - Complexity: O(log n + matches).
    func primaryKeys(firstEqualTo key: ProbeKey, limit: Int) -> [Int64]? {
        guard totallyOrdered else { return nil }
        guard !leaves.isEmpty else { return [] }
        var low = 0, high = lastEntries.count
        lastEntries.withUnsafeBufferPointer { last in
            while low < high {
                let mid = (low + high) >> 1
                if key.isAbove(last[mid].first) { low = mid + 1 } else { high = mid }
            }
        }
        var found: [Int64] = []
        for position in low..<leaves.count {
            let leaf = leaves[position]
            guard let ended = Self.collect(key, in: leaf, into: &found, limit: limit) else { return nil }
            if ended { break }
        }
        // A compound index orders equal first values by the other values: sort the keys.
        if properties.count > 1 { found.sort() }
        return found
    }

    /// Appends to `found` the keys of `leaf`'s entries equal to `key`; returns whether an
    /// entry above the key ended the run (`false`: it may go on in the next leaf), or `nil`
    /// past `limit` or for a leaf whose values cannot hold the key.
    private static func collect(_ key: ProbeKey, in leaf: IndexLeaf, into found: inout [Int64], limit: Int) -> Bool? {
        switch (key, leaf.values) {
        case (.integer(let wanted), .integers(let values)):
            return values.withUnsafeBufferPointer { values in
                var low = 0, high = values.count
                while low < high {
                    let mid = (low + high) >> 1
                    if values[mid] < wanted { low = mid + 1 } else { high = mid }
                }
                while low < values.count, values[low] == wanted {
                    guard found.count < limit else { return nil }
                    found.append(leaf.keys[low])
                    low += 1
                }
                return low < values.count
            }
        case (.string(let wanted), .strings(let values)):
            return values.withUnsafeBufferPointer { values in
                var low = 0, high = values.count
                while low < high {
                    let mid = (low + high) >> 1
                    if StringOrder.compare(values[mid], wanted) == .orderedAscending { low = mid + 1 } else { high = mid }
                }
                while low < values.count, values[low] == wanted {
                    guard found.count < limit else { return nil }
                    found.append(leaf.keys[low])
                    low += 1
                }
                return low < values.count
            }
        case (_, .entries(let entries)):
            return entries.withUnsafeBufferPointer { entries in
                var low = 0, high = entries.count
                while low < high {
                    let mid = (low + high) >> 1
                    if key.isAbove(entries[mid].first) { low = mid + 1 } else { high = mid }
                }
                while low < entries.count, key.isEqual(to: entries[low].first) {
                    guard found.count < limit else { return nil }
                    found.append(leaf.keys[low])
                    low += 1
                }
                return low < entries.count
            }
        default:
            // A leaf of doubles or dates: not an index over a string or integer attribute.
            return nil
        }
    }
}
