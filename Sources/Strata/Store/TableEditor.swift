internal import StrataStorage

/// Applies one entity's changes to an ``EntityTable``, copying only the chunks it touches.
/// Rows stay sorted by primary key; chunks split past twice ``EntityTable/chunkRows``.
struct TableEditor {
    var table: EntityTable

    /// Applies deletes, then updates, then inserts, stamping every written row with `version`.
    ///
    /// - Throws: ``PayloadError`` when a change names a row that is missing (or, for an
    ///   insert, present): such a log cannot be replayed.
    mutating func apply(_ changes: Changeset.EntityChanges, version: UInt64) throws {
        if !changes.deletes.isEmpty { try delete(changes.deletes.map(\.primaryKey)) }
        if !changes.updates.isEmpty { try applyUpdates(changes.updates, version: version) }
        // Updates keep every chunk's keys and size; the append fast path maintains the index
        // and the row count itself (recomputing them is O(chunks) per commit).
        if !changes.inserts.isEmpty, try insert(changes.inserts, version: version), changes.deletes.isEmpty { return }
        if changes.deletes.isEmpty && changes.inserts.isEmpty { return }
        table.rowCount = table.chunks.reduce(0) { $0 + $1.count }
        table.chunkFirstKeys = table.chunks.map(\.firstKey)
    }

    private mutating func delete(_ keys: [Int64]) throws {
        var byChunk: [Int: [Int]] = [:]
        for key in keys {
            guard let location = table.locate(key) else { throw PayloadError("delete of missing row \(table.layout.entity.name) #\(key)") }
            byChunk[location.chunk, default: []].append(location.row)
        }
        for (chunk, rows) in byChunk {
            var columns = table.chunks[chunk].columns
            let sortedRows = rows.sorted()
            // A log names each deleted row once; a repeat would make the column copy run
            // backwards, so it is refused as a damaged payload.
            for i in sortedRows.indices.dropFirst() where sortedRows[i] == sortedRows[i - 1] {
                let key = table.chunks[chunk].primaryKeys[sortedRows[i]]
                throw PayloadError("delete of row \(table.layout.entity.name) #\(key) twice in one transaction")
            }
            for c in columns.indices { columns[c].remove(rows: sortedRows) }
            table.chunks[chunk] = TableChunk(columns: columns)
        }
        table.chunks.removeAll { $0.count == 0 }
        table.chunkFirstKeys = table.chunks.map(\.firstKey)
    }

    /// - Returns: whether the rows went to the end (the fast path, which keeps
    ///   `chunkFirstKeys` and `rowCount` up to date).
    private mutating func insert(_ inserts: Changeset.Inserts, version: UInt64) throws -> Bool {
        // A run's keys ascend by construction: its order is its positions, with no array of
        // them (at ten million rows, 80 MB).
        if let run = inserts.consecutiveKeys {
            if table.chunks.isEmpty || run.first > table.chunks[table.chunks.count - 1].lastKey {
                appendAtEnd(inserts, order: 0..<run.count, version: version)
                return true
            }
        }
        // A save lists its rows in key order: keys that ascend need no array of their
        // positions either (at ten million rows, 80 MB).
        if Self.keysAscend(inserts),
           table.chunks.isEmpty || inserts.primaryKey(at: 0) > table.chunks[table.chunks.count - 1].lastKey {
            appendAtEnd(inserts, order: 0..<inserts.count, version: version)
            return true
        }
        let order = Self.keyOrder(inserts)
        if table.chunks.isEmpty || inserts.primaryKey(at: order[0]) > table.chunks[table.chunks.count - 1].lastKey {
            appendAtEnd(inserts, order: order[...], version: version)
            return true
        }
        for index in order {
            let insert = inserts[index]
            let chunkIndex = table.chunkIndex(for: insert.primaryKey) ?? 0
            var columns = table.chunks[chunkIndex].columns
            let keys = table.chunks[chunkIndex].primaryKeys
            var position = 0, high = keys.count
            while position < high {
                let mid = (position + high) / 2
                if keys[mid] < insert.primaryKey { position = mid + 1 } else { high = mid }
            }
            if position < keys.count && keys[position] == insert.primaryKey {
                throw PayloadError("insert of existing row \(table.layout.entity.name) #\(insert.primaryKey)")
            }
            columns[EntityLayout.primaryKeyColumn].insert(.int(insert.primaryKey), at: position)
            columns[EntityLayout.versionColumn].insert(.int(Int64(version)), at: position)
            for (p, property) in table.layout.properties.enumerated() {
                columns[property.column].insert(insert.values[p], at: position)
            }
            if columns[0].count > 2 * EntityTable.chunkRows {
                let half = columns[0].count / 2
                var tail: [ColumnChunk] = []
                for c in columns.indices { tail.append(columns[c].split(at: half)) }
                table.chunks[chunkIndex] = TableChunk(columns: columns)
                table.chunks.insert(TableChunk(columns: tail), at: chunkIndex + 1)
            } else {
                table.chunks[chunkIndex] = TableChunk(columns: columns)
            }
            table.chunkFirstKeys = table.chunks.map(\.firstKey)
        }
        return false
    }

    /// Whether the primary keys of `inserts` strictly ascend in their given order.
    static func keysAscend(_ inserts: Changeset.Inserts) -> Bool {
        var previous = Int64.min
        for position in inserts.indices {
            let key = inserts.primaryKey(at: position)
            if position > 0 && key <= previous { return false }
            previous = key
        }
        return true
    }

    /// The indexes of `inserts` by ascending primary key, equal keys in their given order.
    ///
    /// A save's keys were allocated together, so they usually fill a dense range: each index
    /// is then placed by its key in O(n), rather than sorted (a context hands its inserts over
    /// in hash order). Sparse or repeated keys take a comparison sort.
    static func keyOrder(_ inserts: Changeset.Inserts) -> [Int] {
        let count = inserts.count
        guard count > 1 else { return Array(0..<count) }
        var low = Int64.max, high = Int64.min, ascending = true, previous = Int64.min
        for position in inserts.indices {
            let key = inserts.primaryKey(at: position)
            low = min(low, key)
            high = max(high, key)
            ascending = ascending && key > previous
            previous = key
        }
        if ascending { return Array(0..<count) }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow, span < 2 * Int64(count) {
            var slots = [Int](repeating: -1, count: Int(span) + 1)
            var unique = true
            for index in inserts.indices {
                let slot = Int(inserts.primaryKey(at: index) - low)
                if slots[slot] >= 0 { unique = false; break }
                slots[slot] = index
            }
            if unique {
                if slots.count == count { return slots }
                return slots.filter { $0 >= 0 }
            }
        }
        return (0..<count).sorted { a, b in
            let x = inserts.primaryKey(at: a), y = inserts.primaryKey(at: b)
            return x < y || (x == y && a < b)
        }
    }

    /// The fast path: every new key is above every existing key (the usual case), so rows
    /// go to the end, in `order` (indexes of `rows` by ascending key).
    ///
    /// Chunks are immutable (pinned versions share them), so adding rows to a partly filled
    /// tail chunk means copying it. To keep that cheap when each commit adds a row or two,
    /// the tail is a few partly filled chunks of roughly decreasing size, merged like a
    /// binary counter: a trailing chunk that is not full is rebuilt with the new rows only
    /// while it holds at most twice as many rows as come after it. Each row is then copied
    /// O(log ``EntityTable/chunkRows``) times in all, rather than once per commit until its
    /// chunk is full, and every chunk but the last few stays full.
    private mutating func appendAtEnd<Order: RandomAccessCollection<Int>>(_ rows: Changeset.Inserts, order: Order,
                                                                         version: UInt64) where Order.Index == Int {
        defer {
            table.rowCount += rows.count
            table.chunkFirstKeys.append(contentsOf: table.chunks[table.chunkFirstKeys.count...].map(\.firstKey))
        }
        var first = table.chunks.count
        var following = rows.count
        var merged = 0
        while first > 0, merged < EntityTable.chunkRows {
            let count = table.chunks[first - 1].count
            guard count < EntityTable.chunkRows, count <= 2 * following else { break }
            following += count
            merged += count
            first -= 1
        }
        var start = 0
        if first < table.chunks.count {
            var columns = table.chunks[first].columns
            for chunk in table.chunks[(first + 1)...] {
                for c in columns.indices { columns[c].append(contentsOf: chunk.columns[c]) }
            }
            table.chunks.removeSubrange(first...)
            table.chunkFirstKeys.removeSubrange(first...)
            if merged >= EntityTable.chunkRows {
                var rest: [ColumnChunk] = []
                for c in columns.indices { rest.append(columns[c].split(at: EntityTable.chunkRows)) }
                table.chunks.append(TableChunk(columns: columns))
                columns = rest
            }
            let take = min(EntityTable.chunkRows - columns[EntityLayout.primaryKeyColumn].count, rows.count)
            append(rows, order[order.startIndex..<order.startIndex + take], to: &columns, version: version)
            if columns[EntityLayout.primaryKeyColumn].count > 0 { table.chunks.append(TableChunk(columns: columns)) }
            start = take
        }
        while start < rows.count {
            let end = min(start + EntityTable.chunkRows, rows.count)
            var columns = table.layout.table.columns.map { ColumnChunk.empty($0.kind) }
            append(rows, order[order.startIndex + start..<order.startIndex + end], to: &columns, version: version)
            table.chunks.append(TableChunk(columns: columns))
            start = end
        }
    }

    /// Appends `rows[i]` for each `i` of `order` to `columns`, one column at a time.
    private func append(_ rows: Changeset.Inserts, _ order: some Collection<Int>, to columns: inout [ColumnChunk],
                        version: UInt64) {
        ColumnAppender.append(keys: order.map { rows.primaryKey(at: $0) }, version: Int64(version), to: &columns)
        for (p, property) in table.layout.properties.enumerated() {
            ColumnAppender.append(property: p, of: rows, order, to: &columns[property.column])
        }
    }
}

extension ColumnChunk {
    /// Appends every row of `other`, a column of the same kind.
    mutating func append(contentsOf other: ColumnChunk) {
        if validity != nil || other.validity != nil {
            var merged = validity ?? [Bool](repeating: true, count: count)
            validity = nil
            merged.append(contentsOf: other.validity ?? [Bool](repeating: true, count: other.count))
            validity = merged
        }
        switch (values, other.values) {
        case (.bool(var a), .bool(let b)): values = .bool([]); a.append(contentsOf: b); values = .bool(a)
        case (.int64(var a), .int64(let b)): values = .int64([]); a.append(contentsOf: b); values = .int64(a)
        case (.double(var a), .double(let b)): values = .double([]); a.append(contentsOf: b); values = .double(a)
        case (.bytes(var a), .bytes(let b)):
            values = .bytes(ByteColumn())
            let base = UInt32(a.data.count)
            a.data.append(contentsOf: b.data)
            a.offsets.append(contentsOf: b.offsets.dropFirst().lazy.map { $0 + base })
            values = .bytes(a)
        default:
            preconditionFailure("appending a \(other.values.kind) column to a \(values.kind) column")
        }
    }
}
