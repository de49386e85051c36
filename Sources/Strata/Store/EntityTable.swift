internal import StrataStorage

/// All rows of one entity in one store version: chunks sorted by primary key, plus the
/// next primary key to hand out. A value type; copying it copies only chunk references.
struct EntityTable: Sendable {
    /// Rows per chunk that inserts aim for; a chunk is split when it grows past twice this.
    static let chunkRows = 1024

    let layout: EntityLayout
    var chunks: [TableChunk]
    /// First key of each chunk, for binary search (kept in step with `chunks`).
    var chunkFirstKeys: [Int64]
    var rowCount: Int
    /// The layout's indexes, in its order, each built on first use. Edits leave them stale
    /// (describing the chunks before the edit); ``StoreVersion`` makes them follow the rows
    /// before anyone reads them.
    var indexes: [LazyTableIndex] = []

    init(layout: EntityLayout, chunks: [TableChunk] = []) {
        self.layout = layout
        // A snapshot's chunks are never empty: kept as they are (one array, no copy), and
        // the first keys and row count taken in one pass.
        self.chunks = chunks.contains { $0.count == 0 } ? chunks.filter { $0.count > 0 } : chunks
        var firstKeys: [Int64] = []
        firstKeys.reserveCapacity(self.chunks.count)
        var rows = 0
        for chunk in self.chunks {
            firstKeys.append(chunk.firstKey)
            rows += chunk.count
        }
        chunkFirstKeys = firstKeys
        rowCount = rows
        indexes = layout.indexes.map { LazyTableIndex(properties: $0, basis: self.chunks) }
    }

    /// The table's indexes made to describe its chunks: built ones brought up to date,
    /// pending ones replaced by pending ones over the new chunks.
    mutating func refreshIndexes() {
        for i in indexes.indices where !indexes[i].describes(chunks) { indexes[i] = indexes[i].following(self) }
    }

    /// The position in ``indexes`` of the index whose first property is `property`,
    /// preferring a single-property one.
    func indexPosition(leadingWith property: Int) -> Int? {
        var found: Int?
        for (position, index) in indexes.enumerated() where index.properties[0] == property {
            if index.properties.count == 1 { return position }
            if found == nil { found = position }
        }
        return found
    }

    /// An index whose first property is `property`, preferring a single-property one, built
    /// now if this is its first use.
    /// - Complexity: O(1) once built; O(n log n) in the rows the first time.
    func index(leadingWith property: Int) -> TableIndex? {
        indexPosition(leadingWith: property).map { indexes[$0].index(for: self) }
    }

    /// Where the row with `key` is: chunk index and row index.
    func locate(_ key: Int64) -> (chunk: Int, row: Int)? {
        guard let chunk = chunkIndex(for: key), let row = chunks[chunk].row(of: key) else { return nil }
        return (chunk, row)
    }

    /// The chunk whose key range would hold `key` (the last chunk whose first key ≤ key).
    func chunkIndex(for key: Int64) -> Int? {
        var low = 0, high = chunkFirstKeys.count
        while low < high {
            let mid = (low + high) / 2
            if chunkFirstKeys[mid] <= key { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? (chunks.isEmpty ? nil : 0) : low - 1
    }

    /// The value of `property` (index into `layout.properties`) for the row at `location`.
    func value(_ property: Int, at location: (chunk: Int, row: Int)) -> AttributeValue {
        let p = layout.properties[property]
        return chunks[location.chunk].columns[p.column].value(at: location.row, type: p.type)
    }

    /// The row with `key`, in place in its chunk (nothing is decoded), and its version;
    /// `nil` when there is no such row.
    func row(_ key: Int64) -> (values: RowValues, version: UInt64)? {
        guard let location = locate(key) else { return nil }
        let chunk = chunks[location.chunk]
        return (RowValues(chunk: chunk, row: location.row, columns: layout.columnAccess),
                UInt64(chunk.versions[location.row]))
    }

    /// The version of the row at `location`.
    func version(at location: (chunk: Int, row: Int)) -> UInt64 {
        UInt64(chunks[location.chunk].versions[location.row])
    }

    /// Every primary key, ascending.
    var allKeys: [Int64] {
        var keys: [Int64] = []
        keys.reserveCapacity(rowCount)
        for chunk in chunks { keys.append(contentsOf: chunk.primaryKeys) }
        return keys
    }
}
