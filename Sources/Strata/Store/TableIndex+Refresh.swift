extension TableIndex {
    /// The index brought up to date with `table`, from the chunks that differ between what
    /// it describes and the table's chunks: a row whose key and version are in both is
    /// unchanged (a write always stamps a new version), every other row of those chunks is
    /// removed or added. Both sides' rows are in key order, so one merge walk pairs them.
    /// - Complexity: O(rows of the differing chunks + changed rows × log n), plus O(chunks)
    ///   to find them.
    func refreshed(for table: borrowing EntityTable) -> TableIndex {
        if describes(table.chunks) { return self }
        let old = basis, new = table.chunks
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] === new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] === new[new.count - 1 - suffix] { suffix += 1 }
        let access = properties.map { table.layout.columnAccess[$0] }
        var removals: [IndexEntry] = [], additions: [IndexEntry] = []
        var before = RowCursor(old[prefix..<old.count - suffix]), after = RowCursor(new[prefix..<new.count - suffix])
        while let was = before.current, let now = after.current {
            let oldKey = was.key, newKey = now.key
            if oldKey == newKey {
                if was.version != now.version {
                    removals.append(Self.entry(before.chunk, before.row, oldKey, access))
                    additions.append(Self.entry(after.chunk, after.row, newKey, access))
                }
                before.advance()
                after.advance()
            } else if oldKey < newKey {
                removals.append(Self.entry(before.chunk, before.row, oldKey, access))
                before.advance()
            } else {
                additions.append(Self.entry(after.chunk, after.row, newKey, access))
                after.advance()
            }
        }
        while let was = before.current {
            removals.append(Self.entry(before.chunk, before.row, was.key, access))
            before.advance()
        }
        while let now = after.current {
            additions.append(Self.entry(after.chunk, after.row, now.key, access))
            after.advance()
        }
        removals.sort(by: IndexEntry.precedes)
        if properties.count == 1, let sorted = Self.sortedByNumber(additions) ?? Self.sortedByString(additions) {
            additions = sorted
        } else {
            additions.sort(by: IndexEntry.precedes)
        }
        var copy = self
        copy.apply(removing: removals, adding: additions, basis: new)
        return copy
    }
}

/// A walk over the rows of a run of chunks, in key order, reading each chunk's keys and
/// versions once.
private struct RowCursor {
    private let chunks: ArraySlice<TableChunk>
    private var position: Int
    private(set) var row = 0
    private var keys: [Int64] = []
    private var versions: [Int64] = []

    init(_ chunks: ArraySlice<TableChunk>) {
        self.chunks = chunks
        position = chunks.startIndex
        load()
    }

    /// The chunk of the current row.
    var chunk: TableChunk { chunks[position] }

    /// The current row's key and version, or `nil` past the last row.
    var current: (key: Int64, version: Int64)? {
        row < keys.count ? (keys[row], versions[row]) : nil
    }

    mutating func advance() {
        row += 1
        if row == keys.count {
            position += 1
            load()
        }
    }

    /// Reads the chunk at `position` (skipping empty ones), or empties the cursor past the end.
    private mutating func load() {
        row = 0
        while position < chunks.endIndex, chunks[position].count == 0 { position += 1 }
        guard position < chunks.endIndex else { keys = []; versions = []; return }
        keys = chunks[position].primaryKeys
        versions = chunks[position].versions
    }
}
