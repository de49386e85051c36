import Dispatch
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
    /// The layout's indexes, in its order. Edits leave them stale (describing the chunks
    /// before the edit); ``StoreVersion`` brings them up to date before anyone reads them.
    var indexes: [TableIndex] = []

    init(layout: EntityLayout, chunks: [TableChunk] = []) {
        self.layout = layout
        self.chunks = chunks.filter { $0.count > 0 }
        chunkFirstKeys = self.chunks.map(\.firstKey)
        rowCount = self.chunks.reduce(0) { $0 + $1.count }
        indexes = Self.buildIndexes(of: self)
    }

    /// The layout's indexes over `table`'s rows; several over many rows are built on
    /// separate threads (each index sorts its entries on its own).
    private static func buildIndexes(of table: EntityTable) -> [TableIndex] {
        let wanted = table.layout.indexes
        guard wanted.count > 1, table.rowCount >= 50_000 else {
            return wanted.map { TableIndex(properties: $0, table: table) }
        }
        let built = Locked<[Int: TableIndex]>([:])
        DispatchQueue.concurrentPerform(iterations: wanted.count) { i in
            let index = TableIndex(properties: wanted[i], table: table)
            built.withLock { $0[i] = index }
        }
        return built.withLock { done in wanted.indices.map { done[$0]! } }
    }

    /// The tables' indexes brought up to date with their chunks.
    mutating func refreshIndexes() {
        for i in indexes.indices where !indexes[i].describes(chunks) { indexes[i] = indexes[i].refreshed(for: self) }
    }

    /// A fresh index whose first property is `property`, preferring a single-property one.
    func index(leadingWith property: Int) -> TableIndex? {
        var found: TableIndex?
        for index in indexes where index.properties[0] == property && index.describes(chunks) {
            if index.properties.count == 1 { return index }
            if found == nil { found = index }
        }
        return found
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
