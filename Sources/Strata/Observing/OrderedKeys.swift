/// The primary keys of a fetched-results controller's results, in result order, as a list
/// of chunks: inserting or removing one key moves at most one chunk's worth of keys, not
/// the whole list (a million-row result stays updatable in microseconds).
///
/// Offsets are found by walking the chunk counts: O(n / chunk size) per lookup.
struct OrderedKeys {
    /// A chunk grows to twice this before it is split in two.
    static let chunkSize = 1024

    private(set) var chunks: [[Int64]] = []
    private(set) var count = 0

    init() {}

    /// The keys of `keys`, in that order.
    init(_ keys: some Collection<Int64>) {
        var chunk: [Int64] = []
        chunk.reserveCapacity(Self.chunkSize)
        for key in keys {
            chunk.append(key)
            if chunk.count == Self.chunkSize {
                chunks.append(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        count = keys.count
    }

    /// Every key, in order.
    var all: [Int64] {
        var result: [Int64] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk) }
        return result
    }

    /// The key at `offset`.
    subscript(offset: Int) -> Int64 {
        let (c, r) = locate(offset)
        return chunks[c][r]
    }

    /// The chunk and row of `offset` (for `offset == count`, one past the last row).
    private func locate(_ offset: Int) -> (chunk: Int, row: Int) {
        var remaining = offset
        for (index, chunk) in chunks.enumerated() {
            if remaining < chunk.count { return (index, remaining) }
            remaining -= chunk.count
        }
        return (max(chunks.count - 1, 0), chunks.last?.count ?? 0)
    }

    /// The first offset whose key `isBefore` is false for (the keys must be partitioned:
    /// every key it holds for comes before every key it does not).
    /// - Complexity: O(n / chunk size + log n) calls of `isBefore`.
    func partitionPoint(_ isBefore: (Int64) -> Bool) -> Int {
        // The first chunk whose last key is not before, then a binary search inside it.
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if isBefore(chunks[mid][chunks[mid].count - 1]) { low = mid + 1 } else { high = mid }
        }
        var offset = 0
        for chunk in chunks[0..<low] { offset += chunk.count }
        guard low < chunks.count else { return offset }
        let chunk = chunks[low]
        var l = 0, h = chunk.count
        while l < h {
            let mid = (l + h) / 2
            if isBefore(chunk[mid]) { l = mid + 1 } else { h = mid }
        }
        return offset + l
    }

    /// Inserts `key` at `offset`.
    mutating func insert(_ key: Int64, at offset: Int) {
        count += 1
        guard !chunks.isEmpty else { chunks = [[key]]; return }
        let (c, r) = locate(offset)
        chunks[c].insert(key, at: r)
        if chunks[c].count >= 2 * Self.chunkSize {
            let tail = Array(chunks[c][Self.chunkSize...])
            chunks[c].removeSubrange(Self.chunkSize...)
            chunks.insert(tail, at: c + 1)
        }
    }

    /// Removes the key at `offset`.
    mutating func remove(at offset: Int) {
        let (c, r) = locate(offset)
        chunks[c].remove(at: r)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
    }
}
