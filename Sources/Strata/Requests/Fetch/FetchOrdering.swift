import Foundation
internal import StrataStorage

extension FetchPlan {
    /// Orders `items` by the sort keys (nil first when ascending; ties by primary key), then
    /// applies offset and limit.
    /// - Complexity: O(n log n).
    func order(_ items: [FetchItem], version: StoreVersion) -> [FetchItem] {
        // A step that never stops the sort: the result is never nil.
        order(items, version: version) { _ in true } ?? []
    }

    /// The work of ordering `count` matches, in the units ``order(_:version:step:)`` reports:
    /// one pass to read the sort keys, the sort's passes, one pass to gather the results.
    func orderWork(count: Int) -> Int {
        sort.isEmpty ? 0 : count * (2 + IndexMergeSort.passes(count: count))
    }

    /// Orders `items` (an array of ``FetchItem``s, or an asynchronous fetch's compact
    /// ``FetchMatches``) as ``order(_:version:)`` does, telling `step` of the work done (in all
    /// ``orderWork(count:)`` units, at most ``IndexMergeSort/stepLength`` at once) and
    /// stopping with `nil` when it returns `false`.
    /// - Complexity: O(n log n).
    func order<Items: FetchMatchList>(_ items: Items, version: StoreVersion, step: (Int) -> Bool) -> [FetchItem]? {
        guard let order = orderPositions(items, version: version, step: step) else { return nil }
        // Every match, in its own order: an array is returned as it is.
        if case .scan = order.positions, order.kept == 0..<items.count { return Array(items) }
        var ordered: [FetchItem] = []
        ordered.reserveCapacity(order.kept.count)
        return gather(order, step: step) { ordered.append(items[$0]) } ? ordered : nil
    }

    /// Where each of `items` goes in the fetch's order (the sort's and ``orderWork(count:)``'s
    /// work up to the gather, told to `step` as ``order(_:version:step:)`` tells it), offset and
    /// limit applied; `nil` when `step` stopped it. The sort's arrays are let go on return:
    /// only the positions are left for the gather.
    ///
    /// With `numeric` false the numeric keys are not read: a caller that read them already
    /// and found a nil or NaN (``readNumericKeys(_:version:step:put:)``) goes on as this would.
    /// - Complexity: O(n log n).
    func orderPositions<Items: FetchMatchList>(_ items: Items, version: StoreVersion, numeric: Bool = true,
                                               step: (Int) -> Bool) -> FetchOrder? {
        let stride = IndexMergeSort.stepLength
        var positions = FetchOrder.Positions.scan
        if sort.isEmpty {
            // A scan yields rows in primary-key order already; only a context's pending
            // objects, appended after them, can be out of place.
            if !Self.isInKeyOrder(items) {
                guard let sorted = IndexMergeSort.sorted(count: items.count, by: { items.primaryKey(at: $0) < items.primaryKey(at: $1) },
                                                         step: { _ in true }) else { return nil }
                positions = .wide(sorted)
            }
        } else if let index = orderIndex(version, count: items.count), let walked = walkOrder(items, index: index) {
            // The index is in sort order already: the walk replaces reading keys and sorting.
            positions = .wide(walked)
            var work = orderWork(count: items.count) - items.count
            while work > 0 {
                if !step(min(stride, work)) { return nil }
                work -= stride
            }
        } else if numeric, sort.count == 1, let fast = numericKeys(items, version: version, step: step) {
            guard let fast else { return nil }
            if Self.isInKeyOrder(items) {
                // Equal values stay in key order: a radix sort of the keys' bits orders the
                // matches as the comparison below. Positions of 4 bytes when they fit.
                if items.count <= Int(UInt32.max) {
                    guard let sorted = IndexRadixSort.sorted(keys: consume fast, as: UInt32.self, step: step) else { return nil }
                    positions = .narrow(sorted)
                } else {
                    guard let sorted = IndexRadixSort.sorted(keys: consume fast, as: Int.self, step: step) else { return nil }
                    positions = .wide(sorted)
                }
            } else {
                let sorted = fast.withUnsafeBufferPointer { fast in
                    IndexMergeSort.sorted(count: items.count, by: { a, b in
                        let (x, y) = (fast[a], fast[b])
                        if x != y { return x < y }
                        return items.primaryKey(at: a) < items.primaryKey(at: b)
                    }, step: step)
                }
                guard let sorted else { return nil }
                positions = .wide(sorted)
            }
        } else {
            var keys: [[AttributeValue]] = []
            keys.reserveCapacity(items.count)
            // One iterator over all the steps: it follows a compact list's chunks.
            var iterator = items.makeIterator()
            for start in Swift.stride(from: 0, to: items.count, by: stride) {
                for _ in start..<min(start + stride, items.count) {
                    let item = iterator.next().unsafelyUnwrapped
                    // A case-insensitive key is folded once here rather than in every comparison.
                    keys.append(sort.map { key in
                        let value = value(of: item, property: key.property, version: version)
                        return key.caseInsensitive ? Fold.fold(value, .caseInsensitive) : value
                    })
                }
                if !step(min(stride, items.count - start)) { return nil }
            }
            guard let sorted = IndexMergeSort.sorted(count: items.count, by: { a, b in
                for (s, key) in sort.enumerated() {
                    let result = compare(keys[a][s], keys[b][s], caseInsensitive: false)
                    if result != .orderedSame { return key.ascending ? result == .orderedAscending : result == .orderedDescending }
                }
                return items.primaryKey(at: a) < items.primaryKey(at: b)
            }, step: step) else { return nil }
            positions = .wide(sorted)
        }
        let count = items.count
        let start = min(request.fetchOffset, count)
        var end = count
        // `start + fetchLimit` would overflow for a limit near `Int.max`.
        if request.fetchLimit > 0 { end = start + min(request.fetchLimit, count - start) }
        return FetchOrder(positions: positions, kept: start..<end, count: count)
    }

    /// Calls `body` with the position among the matches of each result of `order`, in result
    /// order, and tells `step` of the gather's work as ``order(_:version:step:)`` does: a pass
    /// over every match, whatever offset and limit keep. Matches in their own order
    /// (``FetchOrder/Positions/scan``) are not gathered and report nothing.
    ///
    /// - Returns: `false` when `step` stopped it.
    func gather(_ order: FetchOrder, step: (Int) -> Bool, _ body: (Int) -> Void) -> Bool {
        switch order.positions {
        case .scan:
            for position in order.kept { body(position) }
            return true
        case .wide(let positions):
            return Self.gather(positions, order: order, step: step, body)
        case .narrow(let positions):
            return Self.gather(positions, order: order, step: step, body)
        }
    }

    private static func gather<Position: BinaryInteger>(_ positions: [Position], order: FetchOrder, step: (Int) -> Bool,
                                                        _ body: (Int) -> Void) -> Bool {
        let stride = IndexMergeSort.stepLength
        let (start, end) = (order.kept.lowerBound, order.kept.upperBound)
        for first in Swift.stride(from: start, to: end, by: stride) {
            for position in positions[first..<min(first + stride, end)] { body(Int(position)) }
            if !step(min(stride, end - first)) { return false }
        }
        // The gather counts a pass over every match, whatever offset and limit keep.
        var skipped = order.count - order.kept.count
        while skipped > 0 {
            if !step(min(stride, skipped)) { return false }
            skipped -= stride
        }
        return true
    }

    /// Whether `items` are in ascending primary-key order.
    private static func isInKeyOrder<Items: FetchMatchList>(_ items: Items) -> Bool {
        var previous = Int64.min
        for position in items.indices {
            let key = items.primaryKey(at: position)
            if key < previous { return false }
            previous = key
        }
        return true
    }

    /// For one numeric, date or bool sort key over store rows without nulls or NaN: the keys as
    /// unsigned integers in the sort's order (`IndexPairSort.sortable(_:)` of each
    /// value, complemented when descending: equal values stay equal, -0.0 and 0.0 among them),
    /// the fast path for sorting a million rows by a date; or `.some(nil)` when `step`
    /// stopped the reading.
    private func numericKeys<Items: FetchMatchList>(_ items: Items, version: StoreVersion, step: (Int) -> Bool) -> [UInt64]?? {
        var keys: [UInt64] = []
        keys.reserveCapacity(items.count)
        switch readNumericKeys(items, version: version, step: step, put: { _, key in keys.append(key) }) {
        case nil: return nil
        case false?: return .some(nil)
        case true?: return keys
        }
    }

    /// Whether the sort key is one ``numericKeys(_:version:step:)`` reads: a number, date or
    /// bool that is not an integer.
    private var sortsByOneNumber: Bool {
        guard sort.count == 1, let type = layout.properties[sort[0].property].type else { return false }
        // Int64 keys do not all fit a double exactly.
        return (type.isNumeric || type == .date || type == .bool) && !type.isInteger
    }

    /// Whether ``orderPositions(_:version:numeric:step:)`` sorts `items` with the radix sort
    /// of `UInt32` positions, unless a value turns out nil or NaN: one number, no index to
    /// walk, matches in key order that fit the positions.
    func sortsByRadix<Items: FetchMatchList>(_ items: Items, version: StoreVersion) -> Bool {
        sortsByOneNumber && orderIndex(version, count: items.count) == nil && items.count <= Int(UInt32.max)
            && Self.isInKeyOrder(items)
    }

    /// Reads the keys ``numericKeys(_:version:step:)`` returns, handing each to `put` with
    /// its position, and telling `step` of the same work.
    /// - Returns: `nil` when the sort key is not such a number or a value is nil or NaN
    ///   (after some keys were put), `false` when `step` stopped it, `true` once all are put.
    func readNumericKeys<Items: FetchMatchList>(_ items: Items, version: StoreVersion, step: (Int) -> Bool,
                                                put: (Int, UInt64) -> Void) -> Bool? {
        guard sortsByOneNumber else { return nil }
        let property = layout.properties[sort[0].property]
        let chunks = version.tables[layout.index].chunks
        let flip: UInt64 = sort[0].ascending ? 0 : .max
        // The sort column alone of each chunk (`someColumns`): sorting IDs by a date does not
        // decode the rows' other columns. Items come chunk by chunk, so one lookup per chunk.
        var current = -1
        var column = ColumnChunk(values: .double([]))
        for (position, item) in items.enumerated() {
            guard case .row(_, let chunk, let row) = item else { return nil }
            let (c, r) = (Int(chunk), Int(row))
            if c != current {
                column = chunks[c].someColumns([property.column])[property.column]
                current = c
            }
            if let validity = column.validity, !validity[r] { return nil }
            switch column.values {
            case .double(let v):
                // NaN has no place among plain doubles (`<` is false both ways): the general
                // order, which puts it after every number, sorts such a column.
                guard !v[r].isNaN else { return nil }
                put(position, IndexPairSort.sortable(v[r]) ^ flip)
            case .bool(let v): put(position, (v[r] ? 1 : 0) ^ flip)
            default: return nil
            }
            if (position + 1) % IndexMergeSort.stepLength == 0 && !step(IndexMergeSort.stepLength) { return false }
        }
        return step(items.count % IndexMergeSort.stepLength)
    }

    func value(of item: FetchItem, property: Int, version: StoreVersion) -> AttributeValue {
        switch item {
        case .row(_, let c, let r): return version.tables[layout.index].value(property, at: (Int(c), Int(r)))
        case .object(let object): return (try? object.currentValue(property)) ?? .null
        }
    }

    func compare(_ a: AttributeValue, _ b: AttributeValue, caseInsensitive: Bool) -> ComparisonResult {
        Self.order(a, b, caseInsensitive: caseInsensitive)
    }

    /// The order of two values of one sort key: nil first, then by value (``IndexEntry``
    /// orders its entries with this too, so that a walk of an index gives a sorted fetch's
    /// order exactly).
    static func order(_ a: AttributeValue, _ b: AttributeValue, caseInsensitive: Bool) -> ComparisonResult {
        switch (a.isNull, b.isNull) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        default: break
        }
        switch (a, b) {
        case (.string(let x), .string(let y)) where caseInsensitive:
            return StringOrder.compare(Fold.fold(x, .caseInsensitive), Fold.fold(y, .caseInsensitive))
        case (.bool(let x), .bool(let y)):
            return x == y ? .orderedSame : (!x ? .orderedAscending : .orderedDescending)
        case (.uuid(let x), .uuid(let y)):
            return x.uuidString < y.uuidString ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
        case (.binary(let x), .binary(let y)):
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
        case (.double(let x), .double(let y)) where x.isNaN || y.isNaN:
            // NaN after every number, as PostgreSQL orders it: one total order, which sorts
            // and the binary searches over an index's leaves rely on (NaN compared equal to
            // everything otherwise, and a sort could leave the numbers around it unsorted).
            return x.isNaN == y.isNaN ? .orderedSame : x.isNaN ? .orderedDescending : .orderedAscending
        case (.int, .double(let y)) where y.isNaN:
            return .orderedAscending
        case (.double(let x), .int) where x.isNaN:
            return .orderedDescending
        default:
            return ValueComparison.order(a, b) ?? .orderedSame
        }
    }
}
