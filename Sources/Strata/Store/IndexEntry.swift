import Foundation

/// One row in a ``TableIndex``: its indexed values (most significant first) and its
/// primary key, which breaks ties so that equal values keep primary-key order, the order an
/// unsorted fetch and a sort's ties use.
struct IndexEntry: Sendable {
    /// The first indexed value.
    var first: AttributeValue
    /// The other indexed values of a compound index (empty for a single-property one, so
    /// such an entry allocates nothing of its own).
    var rest: [AttributeValue]
    var primaryKey: Int64

    /// The order of the values alone, as a sorted fetch orders them: nil first, numbers
    /// numerically, strings in ``StringOrder``, dates by time, `false` before `true`,
    /// UUIDs by their text, binary data lexicographically.
    static func compareValues(_ a: IndexEntry, _ b: IndexEntry) -> ComparisonResult {
        let first = compare(a.first, b.first)
        if first != .orderedSame { return first }
        for (x, y) in zip(a.rest, b.rest) {
            let result = compare(x, y)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// The index order: values, then primary key.
    static func precedes(_ a: IndexEntry, _ b: IndexEntry) -> Bool {
        let values = compareValues(a, b)
        if values != .orderedSame { return values == .orderedAscending }
        return a.primaryKey < b.primaryKey
    }

    /// Whether both are the same row with the same values.
    static func same(_ a: IndexEntry, _ b: IndexEntry) -> Bool {
        a.primaryKey == b.primaryKey && compareValues(a, b) == .orderedSame
    }

    /// One value against another of the same column (the sort order of a fetch without
    /// `[c]`).
    static func compare(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult {
        if case .int(let x) = a, case .int(let y) = b { return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        return FetchPlan.order(a, b, caseInsensitive: false)
    }
}
