/// The values of a model made by its initializer and not inserted yet: its stored attributes
/// as the row its object will start from, and the models its relationships point to.
///
/// Attributes are kept in stored order, so that ``ObjectContext/insert(_:)`` hands the
/// array to the new object as its row (no per-value copy); which entries were set is
/// kept beside it, as an entry never set takes the store's default at insertion.
struct DetachedValues {
    /// Stored values in stored order, `.null` where never set; empty until the first set.
    private(set) var values: [AttributeValue] = []
    /// Which of the first 64 stored values were set.
    private var setLow: UInt64 = 0
    /// Which stored values past the 64th were set (rare: entities with more attributes).
    private var setHigh: Set<Int> = []
    /// The models each relationship was set to, by declaration index.
    var models: [Int: [AnyObject]] = [:]

    /// Whether nothing was set.
    var isEmpty: Bool { values.isEmpty && models.isEmpty }

    /// Sets the stored value at `stored` of a row of `storedCount` values.
    mutating func set(_ value: AttributeValue, at stored: Int, storedCount: Int) {
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
