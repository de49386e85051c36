/// Where a scan puts the store rows it matches, in primary-key order (``FetchPlan``'s
/// `scan`): an array of ``FetchItem``s, which a context's unsaved objects can join, or the
/// compact ``FetchMatches`` of an asynchronous fetch.
protocol FetchMatchSink {
    /// No matches.
    init()
    /// The matches so far.
    var count: Int { get }
    /// The matches it holds room for.
    var capacity: Int { get }
    /// Makes room for `minimumCapacity` matches.
    mutating func reserveCapacity(_ minimumCapacity: Int)
    /// Adds row `row` of chunk `chunk`, whose primary key is `key`, after the matches so far
    /// (chunks ascending, rows ascending within a chunk).
    mutating func append(key: Int64, chunk: Int, row: Int)
}

extension Array: FetchMatchSink where Element == FetchItem {
    /// Adds the row as a ``FetchItem/row(key:chunk:row:)``.
    @inline(__always) mutating func append(key: Int64, chunk: Int, row: Int) {
        append(.at(key: key, chunk: chunk, row: row))
    }
}

/// The store rows a scan matched, in primary-key order, in a third of the memory of as many
/// ``FetchItem``s: the keys (8 bytes each), the number and first match of each chunk with
/// matches, and the row of each match in its chunk (4 bytes more) only once a chunk's matches
/// are not its rows from the first on. A scan with no predicate lists keys alone: a sorted
/// asynchronous fetch of every row holds 8 bytes per row until its results are built,
/// instead of 24.
///
/// Read as a collection of ``FetchItem``s: in order through its iterator (which follows the
/// chunks), or at any position (a binary search over the chunks).
struct FetchMatches: FetchMatchSink, RandomAccessCollection {
    /// The matches of one chunk: the chunk's number and the position of its first match.
    private struct Run {
        var chunk: Int
        var start: Int
    }

    /// The matches' primary keys, ascending.
    private(set) var keys: [Int64] = []
    /// The row of each match in its chunk, once ``rowsListed``.
    private var rows: [UInt32] = []
    /// Whether ``rows`` lists the rows; until then the `n`-th match of each run is its
    /// chunk's row `n`.
    private var rowsListed = false
    private var runs: [Run] = []

    /// No matches.
    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { keys.count }
    var count: Int { keys.count }
    var capacity: Int { keys.capacity }

    /// Makes room for `minimumCapacity` keys (and rows, once listed).
    mutating func reserveCapacity(_ minimumCapacity: Int) {
        keys.reserveCapacity(minimumCapacity)
        if rowsListed { rows.reserveCapacity(minimumCapacity) }
    }

    mutating func append(key: Int64, chunk: Int, row: Int) {
        let position = keys.count
        if runs.last?.chunk != chunk {
            assert(runs.last.map { $0.chunk < chunk } ?? true, "chunks out of order")
            runs.append(Run(chunk: chunk, start: position))
        }
        if !rowsListed && row != position - runs[runs.count - 1].start { listRows() }
        if rowsListed { rows.append(UInt32(row)) }
        keys.append(key)
    }

    /// Lists the rows of the matches so far, which are each run's rows from the first on.
    private mutating func listRows() {
        rows.reserveCapacity(keys.capacity)
        for (r, run) in runs.enumerated() {
            let end = r + 1 < runs.count ? runs[r + 1].start : keys.count
            for position in run.start..<end { rows.append(UInt32(position - run.start)) }
        }
        rowsListed = true
    }

    /// The primary key of the match at `position`.
    @inline(__always) func primaryKey(at position: Int) -> Int64 { keys[position] }

    /// Whether the matches list their rows (4 bytes a match more than the keys): once a
    /// chunk's matches are not its rows from the first on.
    var listsRows: Bool { rowsListed }

    /// The match at `position`.
    /// - Complexity: O(log chunks with matches).
    subscript(position: Int) -> FetchItem {
        var low = 0, high = runs.count
        // The last run starting at or before `position`.
        while high - low > 1 {
            let middle = (low + high) / 2
            if runs[middle].start <= position { low = middle } else { high = middle }
        }
        return item(at: position, run: runs[low])
    }

    @inline(__always) private func item(at position: Int, run: Run) -> FetchItem {
        let row = rowsListed ? Int(rows[position]) : position - run.start
        return .at(key: keys[position], chunk: run.chunk, row: row)
    }

    /// The matches in order, following the runs.
    struct Iterator: IteratorProtocol {
        fileprivate let matches: FetchMatches
        fileprivate var position = 0
        fileprivate var run = 0

        mutating func next() -> FetchItem? {
            guard position < matches.keys.count else { return nil }
            while run + 1 < matches.runs.count && matches.runs[run + 1].start <= position { run += 1 }
            defer { position += 1 }
            return matches.item(at: position, run: matches.runs[run])
        }
    }

    func makeIterator() -> Iterator { Iterator(matches: self) }
}

/// The matches of a scan as ordering reads them (``FetchPlan``'s `orderPositions`): items in
/// scan order, with their primary keys at hand by position.
protocol FetchMatchList: RandomAccessCollection where Element == FetchItem, Index == Int {
    /// The primary key of the match at `position`.
    func primaryKey(at position: Int) -> Int64
}

extension Array: FetchMatchList where Element == FetchItem {
    /// The primary key of the item at `position`.
    @inline(__always) func primaryKey(at position: Int) -> Int64 { self[position].primaryKey }
}

extension FetchMatches: FetchMatchList {}
