extension TableIndex {
    /// The index brought up to date with `table`, from the chunks that differ between what
    /// it describes and the table's chunks: a row whose key and version are in both is
    /// unchanged (a write always stamps a new version), every other row of those chunks is
    /// removed or added.
    /// - Complexity: O(rows of the differing chunks × log n), plus O(chunks) to find them.
    func refreshed(for table: borrowing EntityTable) -> TableIndex {
        if describes(table.chunks) { return self }
        let old = basis, new = table.chunks
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] === new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] === new[new.count - 1 - suffix] { suffix += 1 }
        let access = properties.map { table.layout.columnAccess[$0] }
        var before: [Int64: (chunk: TableChunk, row: Int, version: Int64)] = [:]
        for chunk in old[prefix..<old.count - suffix] {
            let keys = chunk.primaryKeys, versions = chunk.versions
            for row in keys.indices { before[keys[row]] = (chunk, row, versions[row]) }
        }
        var additions: [IndexEntry] = []
        for chunk in new[prefix..<new.count - suffix] {
            let keys = chunk.primaryKeys, versions = chunk.versions
            for row in keys.indices {
                if let previous = before[keys[row]], previous.version == versions[row] {
                    before[keys[row]] = nil
                    continue
                }
                additions.append(Self.entry(chunk, row, keys[row], access))
            }
        }
        var removals = before.map { key, place in Self.entry(place.chunk, place.row, key, access) }
        removals.sort(by: IndexEntry.precedes)
        if properties.count == 1, let sorted = Self.sortedByNumber(additions) {
            additions = sorted
        } else {
            additions.sort(by: IndexEntry.precedes)
        }
        var copy = self
        copy.apply(removing: removals, adding: additions, basis: new)
        return copy
    }
}
