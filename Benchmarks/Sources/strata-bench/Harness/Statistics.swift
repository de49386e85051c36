/// Order statistics over samples.
enum Statistics {
    /// The median of `values` (the mean of the two middle values for an even count), or `nil`
    /// when empty.
    ///
    /// - Complexity: O(n log n).
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `p`-th percentile (0...100) of `values` by the nearest-rank method, or `nil` when
    /// empty.
    ///
    /// - Complexity: O(n log n).
    static func percentile(_ p: Double, of values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
