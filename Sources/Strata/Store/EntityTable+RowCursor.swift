extension EntityTable {
    /// Finds the rows of ascending primary keys one after another, each search starting
    /// where the previous one ended: a run of keys that sit together in a chunk (a to-many
    /// relationship's destinations, inserted together) costs a comparison or two per key,
    /// not two binary searches.
    ///
    /// Reading a chunk's keys decodes it if nobody had (see `TableChunk+Lazy.swift`): a
    /// caller that hands out what it found checks the store's ``SnapshotDamage`` afterwards.
    struct RowCursor {
        private let table: EntityTable
        /// The chunk the last key was found in (-1 before the first).
        private var chunk = -1
        /// That chunk's primary keys.
        private var keys: [Int64] = []
        /// Where the next search starts in `keys`.
        private var row = 0
        /// The previous key asked for (`.min` before the first).
        private var previous = Int64.min

        init(_ table: EntityTable) { self.table = table }

        /// The chunk and row of the row with `key`, or `nil` when the table has none.
        ///
        /// - Precondition: `key` is above every key asked for before.
        mutating func place(of key: Int64) -> (chunk: Int, row: Int)? {
            precondition(key > previous, "a row cursor is asked for ascending keys")
            previous = key
            if chunk < 0 || key > table.chunks[chunk].lastKey {
                guard let next = table.chunkIndex(for: key) else { return nil }
                if next != chunk {
                    chunk = next
                    keys = table.chunks[next].primaryKeys
                    row = 0
                }
            }
            guard row < keys.count else { return nil }
            if keys[row] != key {
                // Keys are ascending: the row is at or after `row`.
                var low = row, high = keys.count
                while low < high {
                    let mid = (low + high) / 2
                    if keys[mid] < key { low = mid + 1 } else { high = mid }
                }
                row = low
                guard row < keys.count, keys[row] == key else { return nil }
            }
            defer { row += 1 }
            return (chunk, row)
        }
    }
}
