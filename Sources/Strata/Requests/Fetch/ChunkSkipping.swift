import Foundation
internal import StrataStorage

extension TableChunk {
    /// The statistics of column `column`: the snapshot footer's for a column it has, or else
    /// computed on first use and cached for a chunk built in memory (chunks are immutable, so
    /// they never go stale). A snapshot chunk's column its footer lacks (one a migration
    /// added since that snapshot) is computed at each call, until a checkpoint writes it.
    func statistics(ofColumn column: Int) -> ColumnStatistics {
        if column < footerStatistics.count { return footerStatistics[column] }
        if let cached = statisticsCache?.withLock({ $0[column] }) { return cached }
        let computed = ColumnStatistics(of: columns[column])
        statisticsCache?.withLock { $0[column] = computed }
        return computed
    }
}

/// Decides from per-chunk min/max whether a chunk can hold a match at all.
struct ChunkSkipper: Sendable {
    /// (column, attribute type, allowed range) for each constrained attribute.
    let constraints: [(column: Int, type: AttributeType, range: PredicateRange)]

    init(bound: BoundPredicate?, layout: EntityLayout) {
        guard let bound else { constraints = []; return }
        constraints = bound.rangeConstraints.compactMap { key, range in
            guard let index = layout.propertyIndex[key], let type = layout.properties[index].type,
                  type.isNumeric || type == .date else { return nil }
            return (layout.properties[index].column, type, range)
        }
    }

    /// Whether no row of `chunk` can match.
    func canSkip(_ chunk: TableChunk) -> Bool {
        for constraint in constraints {
            let stats = chunk.statistics(ofColumn: constraint.column)
            guard let range = stats.range else {
                // Every row is null: a range constraint never matches nil.
                if stats.nullCount == chunk.count && chunk.count > 0 { return true }
                continue
            }
            let (low, high): (AttributeValue, AttributeValue)
            switch range {
            case .int(let lo, let hi): (low, high) = (.int(lo), .int(hi))
            case .double(let lo, let hi):
                if constraint.type == .date {
                    (low, high) = (.date(Date(timeIntervalSinceReferenceDate: lo)), .date(Date(timeIntervalSinceReferenceDate: hi)))
                } else {
                    (low, high) = (.double(lo), .double(hi))
                }
            }
            if !constraint.range.mayOverlap(min: low, max: high) { return true }
        }
        return false
    }
}
