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

/// The store rows a scan matched, in primary-key order, in a fraction of the memory of as many
/// ``FetchItem``s (24 bytes each): the number and first match of each chunk with matches, the
/// keys (8 bytes a match) only once they are not the first key plus the match's position,
/// and the row of each match in its chunk (4 bytes) only once a chunk's matches are not its
/// rows from the first on. A scan with no predicate of a store whose keys were never thinned
/// by deletes (a bulk load) lists neither: a sorted asynchronous fetch of every row holds
/// next to nothing for its matches until its results are built.
///
/// Read as a collection of ``FetchItem``s: in order through its iterator (which follows the
/// chunks), or at any position (a binary search over the chunks); a key at any position
/// costs no search.
struct FetchMatches: FetchMatchSink, RandomAccessCollection {
    /// The matches of one chunk: the chunk's number and the position of its first match.
    private struct Run {
        var chunk: Int
        var start: Int
    }

    /// How many matches.
    private(set) var count = 0
    /// The first match's key: until ``keysListed``, the key at position `p` is this plus `p`.
    private var firstKey: Int64 = 0
    /// The matches' primary keys, ascending, once ``keysListed``.
    private var keys: [Int64] = []
    private var keysListed = false
    /// The row of each match in its chunk, once ``rowsListed``.
    private var rows: [UInt32] = []
    /// Whether ``rows`` lists the rows; until then the `n`-th match of each run is its
    /// chunk's row `n`.
    private var rowsListed = false
    private var runs: [Run] = []
    /// The room asked for by ``reserveCapacity(_:)``, for the lists once they begin.
    private var reserved = 0

    /// No matches.
    init() {}

    /// The first match's position: 0.
    var startIndex: Int { 0 }
    /// Past the last match's position: the count.
    var endIndex: Int { count }
    /// The matches the lists hold room for, or were asked to (``reserveCapacity(_:)``).
    var capacity: Int { Swift.max(reserved, count) }

    /// Makes room for `minimumCapacity` matches in the lists made so far (and in those made
    /// later, when they begin).
    mutating func reserveCapacity(_ minimumCapacity: Int) {
        reserved = Swift.max(reserved, minimumCapacity)
        if keysListed { keys.reserveCapacity(minimumCapacity) }
        if rowsListed { rows.reserveCapacity(minimumCapacity) }
    }

    /// Adds row `row` of chunk `chunk`, whose key is `key`, listing the keys or the rows
    /// from now on when they stop following the first key or the chunk's first row.
    mutating func append(key: Int64, chunk: Int, row: Int) {
        let position = count
        if position == 0 { firstKey = key }
        if runs.last?.chunk != chunk {
            assert(runs.last.map { $0.chunk < chunk } ?? true, "chunks out of order")
            runs.append(Run(chunk: chunk, start: position))
        }
        if !keysListed && key != firstKey &+ Int64(position) { listKeys() }
        if keysListed { keys.append(key) }
        if !rowsListed && row != position - runs[runs.count - 1].start { listRows() }
        if rowsListed { rows.append(UInt32(row)) }
        count += 1
    }

    /// Lists the keys of the matches so far, which are the first key plus their positions.
    private mutating func listKeys() {
        keys.reserveCapacity(capacity)
        for position in 0..<count { keys.append(firstKey &+ Int64(position)) }
        keysListed = true
    }

    /// Lists the rows of the matches so far, which are each run's rows from the first on.
    private mutating func listRows() {
        rows.reserveCapacity(capacity)
        for (r, run) in runs.enumerated() {
            let end = r + 1 < runs.count ? runs[r + 1].start : count
            for position in run.start..<end { rows.append(UInt32(position - run.start)) }
        }
        rowsListed = true
    }

    /// The primary key of the match at `position`.
    @inline(__always) func primaryKey(at position: Int) -> Int64 {
        keysListed ? keys[position] : firstKey &+ Int64(position)
    }

    /// Whether the matches list their keys (8 bytes a match).
    var listsKeys: Bool { keysListed }
    /// Whether the matches list their rows (4 bytes a match).
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
        return .at(key: primaryKey(at: position), chunk: run.chunk, row: row)
    }

    /// The matches in order, following the runs.
    struct Iterator: IteratorProtocol {
        fileprivate let matches: FetchMatches
        fileprivate var position = 0
        fileprivate var run = 0

        /// The next match, or `nil` after the last.
        mutating func next() -> FetchItem? {
            guard position < matches.count else { return nil }
            while run + 1 < matches.runs.count && matches.runs[run + 1].start <= position { run += 1 }
            defer { position += 1 }
            return matches.item(at: position, run: matches.runs[run])
        }
    }

    /// An iterator over the matches in order.
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
