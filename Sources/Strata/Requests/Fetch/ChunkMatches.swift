/// The rows of one chunk a compiled scan matched (``FetchPlan``'s `matchingRows`), with their
/// primary keys.
///
/// A chunk's keys are ascending and distinct, so when its last key is its first plus its
/// row count less one, they are exactly the run `firstKey, firstKey + 1, …`: the keys of a
/// store whose rows were inserted and never deleted in between, which is every chunk of a
/// bulk load. Such a chunk's keys are computed rather than read, and its key column is not
/// decoded for the scan.
struct ChunkMatches {
    /// Rows in the chunk.
    let count: Int
    /// The chunk's first key.
    let firstKey: Int64
    /// The chunk's keys, or `nil` when they are dense (the key of row `r` is
    /// `firstKey + r`).
    let keys: [Int64]?
    /// Which rows match; `nil`: all of them (no predicate).
    let mask: [Bool]?
    /// How many rows match.
    let matches: Int

    /// Whether `chunk`'s keys are `firstKey, firstKey + 1, …, lastKey` (see the type's
    /// comment).
    static func hasDenseKeys(_ chunk: TableChunk) -> Bool {
        guard chunk.count > 0 else { return false }
        let (span, overflow) = chunk.lastKey.subtractingReportingOverflow(chunk.firstKey)
        return !overflow && span == Int64(chunk.count - 1)
    }

    /// Calls `body` with the row number and key of each matching row, in row order.
    func forEachMatch(_ body: (Int, Int64) -> Void) {
        if let keys {
            keys.withUnsafeBufferPointer { keys in
                if let mask {
                    mask.withUnsafeBufferPointer { mask in
                        for row in 0..<min(mask.count, keys.count) where mask[row] { body(row, keys[row]) }
                    }
                } else {
                    for row in keys.indices { body(row, keys[row]) }
                }
            }
        } else if let mask {
            mask.withUnsafeBufferPointer { mask in
                for row in 0..<min(mask.count, count) where mask[row] { body(row, firstKey &+ Int64(row)) }
            }
        } else {
            for row in 0..<count { body(row, firstKey &+ Int64(row)) }
        }
    }
}
