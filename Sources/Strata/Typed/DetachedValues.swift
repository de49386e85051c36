/// The values of a model made by its initializer and not inserted yet: its stored attributes
/// as the row its object will start from, and the models its relationships point to.
///
/// Attributes are kept in stored order, so that ``ObjectContext/insert(_:)`` hands the
/// array to the new object as its row (no per-value copy); which entries were set is
/// kept beside it, as an entry never set takes the store's default at insertion.
///
/// A class, made on a model's first set before insertion, so that a fetched model's
/// ``ModelBacking`` stays two references (a million fetched models pay nothing for it).
///
/// Its stored properties skip the run-time exclusivity check (which was a third of the cost
/// of a set): each instance belongs to one model, which is not `Sendable`, and no method
/// hands out an `inout` access that another could overlap.
final class DetachedValues {
    /// Stored values in stored order, `.null` where never set; empty until the first set.
    @exclusivity(unchecked) private(set) var values: [AttributeValue] = []
    /// Which of the first 64 stored values were set.
    @exclusivity(unchecked) private var setLow: UInt64 = 0
    /// Which stored values past the 64th were set (rare: entities with more attributes).
    @exclusivity(unchecked) private var setHigh: Set<Int> = []
    /// The models each relationship was set to, by declaration index.
    @exclusivity(unchecked) var models: [Int: [AnyObject]] = [:]

    /// Sets the stored value at `stored` of a row of `storedCount` values.
    func set(_ value: AttributeValue, at stored: Int, storedCount: Int) {
        if values.isEmpty { values = Array(repeating: .null, count: storedCount) }
        values[stored] = value
        if stored < 64 { setLow |= 1 << UInt64(stored) } else { setHigh.insert(stored) }
    }

    /// Whether the stored value at `stored` was set.
    func isSet(_ stored: Int) -> Bool {
        stored < 64 ? setLow & (1 << UInt64(stored)) != 0 : setHigh.contains(stored)
    }

    /// The stored value at `stored`, or `nil` when it was never set.
    func value(at stored: Int) -> AttributeValue? {
        isSet(stored) ? values[stored] : nil
    }

    /// The row a new object starts from: the values set, and `defaults` (the store's insert
    /// defaults, in the same order) where none was; `nil` when no attribute was set.
    func row(defaults: [AttributeValue]) -> [AttributeValue]? {
        guard !values.isEmpty, values.count == defaults.count else { return nil }
        var row = values
        for stored in row.indices where !isSet(stored) {
            if case .null = defaults[stored] { continue }
            row[stored] = defaults[stored]
        }
        return row
    }
}
