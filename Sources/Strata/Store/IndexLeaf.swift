import Foundation

/// A run of index entries in index order, shared by every version that did not change it.
///
/// A leaf of a single-property index over integers (or to-one keys), dates or doubles keeps
/// its values as a flat array beside the primary keys: no ``AttributeValue`` per entry, so
/// building, walking and searching it touch two plain arrays. Any other leaf (compound
/// indexes, strings, nils, NaN) keeps ``IndexEntry``s.
final class IndexLeaf: Sendable {
    /// How a leaf holds its values.
    enum Values: Sendable {
        /// The integer values of a single-property index (none nil).
        case integers([Int64])
        /// The values of a single-property index over dates (as time intervals since the
        /// reference date, when `dates`) or doubles; none nil or NaN.
        case numbers([Double], dates: Bool)
        /// The string values of a single-property index (none nil): 16 bytes an entry where an
        /// ``IndexEntry`` takes 40, and entries of one value share its string.
        case strings([String])
        /// The entries themselves.
        case entries([IndexEntry])
    }

    /// The primary keys, in index order.
    let keys: [Int64]
    let values: Values

    init(keys: [Int64], values: Values) {
        self.keys = keys
        self.values = values
    }

    /// A leaf holding `entries` (in index order), compact when their values allow it.
    convenience init(_ entries: ArraySlice<IndexEntry>) {
        let keys = entries.map(\.primaryKey)
        self.init(keys: keys, values: Self.compact(entries) ?? .entries(Array(entries)))
    }

    /// The flat values of `entries` when every one is a single non-nil integer, or every one
    /// a date, or every one a non-NaN double, or every one a string.
    private static func compact(_ entries: ArraySlice<IndexEntry>) -> Values? {
        guard let head = entries.first, head.rest.isEmpty else { return nil }
        switch head.first {
        case .string:
            return flat(entries) { if case .string(let value) = $0 { value } else { nil } }.map(Values.strings)
        case .int:
            return flat(entries) { if case .int(let value) = $0 { value } else { nil } }.map(Values.integers)
        case .date:
            return flat(entries) { if case .date(let date) = $0 { date.timeIntervalSinceReferenceDate } else { nil } }
                .map { .numbers($0, dates: true) }
        case .double:
            return flat(entries) { if case .double(let value) = $0, !value.isNaN { value } else { nil } }
                .map { .numbers($0, dates: false) }
        default:
            return nil
        }
    }

    /// What `value` reads from the first value of each of `entries` (all single-property),
    /// or `nil` when it reads nothing from one of them.
    @inline(__always)
    private static func flat<Value>(_ entries: ArraySlice<IndexEntry>, _ value: (AttributeValue) -> Value?) -> [Value]? {
        var values: [Value] = []
        values.reserveCapacity(entries.count)
        for entry in entries {
            guard entry.rest.isEmpty, let read = value(entry.first) else { return nil }
            values.append(read)
        }
        return values
    }

    /// The number of entries.
    var count: Int { keys.count }

    /// The first (or only) indexed value of the entry at `i`.
    func first(at i: Int) -> AttributeValue {
        switch values {
        case .integers(let values): return .int(values[i])
        case .numbers(let values, let dates): return dates ? .date(Date(timeIntervalSinceReferenceDate: values[i])) : .double(values[i])
        case .strings(let values): return .string(values[i])
        case .entries(let entries): return entries[i].first
        }
    }

    /// The entry at `i`.
    func entry(at i: Int) -> IndexEntry {
        if case .entries(let entries) = values { return entries[i] }
        return IndexEntry(first: first(at: i), rest: [], primaryKey: keys[i])
    }

    /// Every entry, in index order.
    var entries: [IndexEntry] {
        if case .entries(let entries) = values { return entries }
        return keys.indices.map(entry(at:))
    }
}
