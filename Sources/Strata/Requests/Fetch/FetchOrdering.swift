import Foundation
internal import StrataStorage

extension FetchPlan {
    /// Orders `items` by the sort keys (nil first when ascending; ties by primary key), then
    /// applies offset and limit.
    /// - Complexity: O(n log n).
    func order(_ items: [FetchItem], version: StoreVersion) -> [FetchItem] {
        var ordered = items
        if sort.isEmpty {
            // A scan yields rows in primary-key order already; only a context's pending
            // objects, appended after them, can be out of place.
            if !Self.isInKeyOrder(items) { ordered.sort { $0.primaryKey < $1.primaryKey } }
        } else if sort.count == 1, let fast = numericKeys(items, version: version) {
            let ascending = sort[0].ascending
            let indexes = fast.indices.sorted { a, b in
                let (x, y) = (fast[a], fast[b])
                if x != y { return ascending ? x < y : x > y }
                return items[a].primaryKey < items[b].primaryKey
            }
            ordered = indexes.map { items[$0] }
        } else {
            let keys = items.map { item in sort.map { value(of: item, property: $0.property, version: version) } }
            let indexes = items.indices.sorted { a, b in
                for (s, key) in sort.enumerated() {
                    let result = compare(keys[a][s], keys[b][s], caseInsensitive: key.caseInsensitive)
                    if result != .orderedSame { return key.ascending ? result == .orderedAscending : result == .orderedDescending }
                }
                return items[a].primaryKey < items[b].primaryKey
            }
            ordered = indexes.map { items[$0] }
        }
        let start = min(request.fetchOffset, ordered.count)
        var end = ordered.count
        // `start + fetchLimit` would overflow for a limit near `Int.max`.
        if request.fetchLimit > 0 { end = start + min(request.fetchLimit, ordered.count - start) }
        if start == 0 && end == ordered.count { return ordered }
        return Array(ordered[start..<end])
    }

    /// Whether `items` are in ascending primary-key order.
    private static func isInKeyOrder(_ items: [FetchItem]) -> Bool {
        var previous = Int64.min
        for item in items {
            let key = item.primaryKey
            if key < previous { return false }
            previous = key
        }
        return true
    }

    /// For one numeric, date or bool sort key over store rows without nulls: the keys as
    /// doubles (the fast path for sorting a million rows by a date).
    private func numericKeys(_ items: [FetchItem], version: StoreVersion) -> [Double]? {
        let property = layout.properties[sort[0].property]
        guard let type = property.type, type.isNumeric || type == .date || type == .bool else { return nil }
        if type.isInteger { return nil } // Int64 keys do not all fit a double exactly.
        let chunks = version.tables[layout.index].chunks
        var keys: [Double] = []
        keys.reserveCapacity(items.count)
        for item in items {
            guard case .row(_, let c, let r) = item else { return nil }
            let column = chunks[c].columns[property.column]
            if let validity = column.validity, !validity[r] { return nil }
            switch column.values {
            case .double(let v): keys.append(v[r])
            case .bool(let v): keys.append(v[r] ? 1 : 0)
            default: return nil
            }
        }
        return keys
    }

    func value(of item: FetchItem, property: Int, version: StoreVersion) -> AttributeValue {
        switch item {
        case .row(_, let c, let r): return version.tables[layout.index].value(property, at: (c, r))
        case .object(let object): return (try? object.currentValue(property)) ?? .null
        }
    }

    private func compare(_ a: AttributeValue, _ b: AttributeValue, caseInsensitive: Bool) -> ComparisonResult {
        switch (a.isNull, b.isNull) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        default: break
        }
        switch (a, b) {
        case (.string(let x), .string(let y)) where caseInsensitive:
            return x.compare(y, options: [.caseInsensitive])
        case (.bool(let x), .bool(let y)):
            return x == y ? .orderedSame : (!x ? .orderedAscending : .orderedDescending)
        case (.uuid(let x), .uuid(let y)):
            return x.uuidString < y.uuidString ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
        case (.binary(let x), .binary(let y)):
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
        default:
            return ValueComparison.order(a, b) ?? .orderedSame
        }
    }
}
