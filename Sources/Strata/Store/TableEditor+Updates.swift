internal import StrataStorage

extension TableEditor {
    /// Applies `updates` in order, chunk by chunk: each chunk's columns are copied once
    /// however many of its rows change, and a string or binary column is rebuilt once. (One
    /// update at a time copied the chunk's columns again for every row, since the chunk
    /// before the update still held them: an upsert's 50,000 scattered updates over 1M rows
    /// copied every column of a chunk about 50 times.)
    ///
    /// - Throws: ``PayloadError`` when an update names a missing row.
    mutating func applyUpdates(_ updates: [Changeset.Update], version: UInt64) throws {
        var edits: [Int: [(row: Int, update: Int)]] = [:]
        for (position, update) in updates.enumerated() {
            guard let location = table.locate(update.primaryKey) else {
                throw PayloadError("update of missing row \(table.layout.entity.name) #\(update.primaryKey)")
            }
            edits[location.chunk, default: []].append((location.row, position))
        }
        let properties = table.layout.properties
        let stamp = AttributeValue.int(Int64(version))
        for (chunk, rows) in edits {
            // Each column's writes in the updates' order (a later one to a row wins).
            var writes: [Int: [(row: Int, value: AttributeValue)]] = [EntityLayout.versionColumn: rows.map { ($0.row, stamp) }]
            for (row, position) in rows {
                for (property, value) in updates[position].values {
                    writes[properties[property].column, default: []].append((row, value))
                }
            }
            var columns = table.chunks[chunk].columns
            for (column, list) in writes { columns[column].write(list) }
            table.chunks[chunk] = TableChunk(columns: columns)
        }
    }
}

extension ColumnChunk {
    /// Writes each `(row, value)` of `writes` (already type-checked), in order: a later
    /// write to a row replaces an earlier one. The storage is taken out once; a byte column
    /// is rebuilt in one pass instead of shifting its bytes at every row.
    mutating func write(_ writes: [(row: Int, value: AttributeValue)]) {
        guard writes.count > 1, case .bytes(let old) = values else {
            for (row, value) in writes { set(value, at: row) }
            return
        }
        let rows = count
        if validity != nil || writes.contains(where: { $0.value.isNull }) {
            var v = validity ?? [Bool](repeating: true, count: rows)
            validity = nil
            for (row, value) in writes { v[row] = !value.isNull }
            validity = v
        }
        // The write each row takes its bytes from (the last one to it), or -1 to keep them.
        var source = [Int](repeating: -1, count: rows)
        for (position, write) in writes.enumerated() { source[write.row] = position }
        values = .bytes(ByteColumn())
        var offsets: [UInt32] = []
        offsets.reserveCapacity(rows + 1)
        offsets.append(0)
        var data: [UInt8] = []
        data.reserveCapacity(old.data.count + old.data.count / 8)
        old.data.withUnsafeBufferPointer { bytes in
            old.offsets.withUnsafeBufferPointer { oldOffsets in
                var row = 0
                while row < rows {
                    if source[row] >= 0 {
                        data.append(contentsOf: writes[source[row]].value.storedBytes)
                        offsets.append(UInt32(data.count))
                        row += 1
                        continue
                    }
                    // A run of rows kept as they were: their bytes in one copy, their
                    // offsets shifted by where the run now starts (an upsert's scattered
                    // updates leave runs of about twenty rows in a chunk of 1,024).
                    var end = row + 1
                    while end < rows && source[end] < 0 { end += 1 }
                    let from = Int(oldOffsets[row]), to = Int(oldOffsets[end])
                    let shift = data.count - from
                    data.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<to]))
                    for kept in row + 1 ... end { offsets.append(UInt32(Int(oldOffsets[kept]) + shift)) }
                    row = end
                }
            }
        }
        values = .bytes(ByteColumn(offsets: offsets, data: data))
    }
}
