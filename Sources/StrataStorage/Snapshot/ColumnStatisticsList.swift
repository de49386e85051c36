/// The statistics of one chunk's columns, in its table's column order (position 0 is the
/// first column).
///
/// A snapshot's footer decodes every chunk's statistics into one array, and each chunk's
/// list is a view of its run in it: a chunk costs no allocation of its own at open (an array
/// per chunk was a third of the footer's decode). A list made from an array (a chunk being
/// written) views all of it.
public struct ColumnStatisticsList: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral {
    private let storage: [ColumnStatistics]
    private let start: Int
    /// The number of columns.
    public let count: Int

    /// A list of `statistics`, one per column.
    public init(_ statistics: [ColumnStatistics]) {
        storage = statistics
        start = 0
        count = statistics.count
    }

    /// A list of the given statistics, one per column.
    public init(arrayLiteral elements: ColumnStatistics...) {
        self.init(elements)
    }

    /// The `count` statistics of `storage` from `start` on.
    init(storage: [ColumnStatistics], start: Int, count: Int) {
        precondition(start >= 0 && count >= 0 && start + count <= storage.count, "statistics outside their array")
        self.storage = storage
        self.start = start
        self.count = count
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The statistics of column `position`.
    public subscript(position: Int) -> ColumnStatistics {
        precondition(position >= 0 && position < count, "column \(position) of \(count)")
        return storage[start + position]
    }

    /// Two lists are equal when they hold equal statistics in the same order.
    public static func == (a: ColumnStatisticsList, b: ColumnStatisticsList) -> Bool {
        a.elementsEqual(b)
    }

    /// Hashes the statistics in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for statistics in self { hasher.combine(statistics) }
    }
}
