import Foundation
internal import StrataStorage

extension TableEditor {
    /// For sorted `keys`, the rows of each chunk that hold them (a merge walk).
    ///
    /// - Throws: ``PayloadError`` when a key is not in the table.
    func rowsByChunk(_ keys: [Int64]) throws -> [(chunk: Int, rows: [Int])] {
        var result: [(Int, [Int])] = []
        var k = 0
        for (c, chunk) in table.chunks.enumerated() where k < keys.count {
            // The key column alone: a batch delete need not decode the rest (`removingUndecoded`).
            let pks = chunk.primaryKeysAlone
            // Every row of the chunk (a batch over the whole entity): one comparison of the runs.
            if let first = pks.first, let last = pks.last, keys.count - k >= pks.count, keys[k] == first,
               keys[k + pks.count - 1] == last, Self.same(pks, keys, from: k) {
                result.append((c, [Int](unsafeUninitializedCapacity: pks.count) { rows, n in
                    for r in 0..<rows.count { rows[r] = r }
                    n = rows.count
                }))
                k += pks.count
                continue
            }
            var rows: [Int] = []
            rows.reserveCapacity(min(pks.count, keys.count - k))
            let missing = pks.withUnsafeBufferPointer { pks in
                keys.withUnsafeBufferPointer { keys -> Bool in
                    var r = 0
                    while k < keys.count, r < pks.count {
                        if pks[r] == keys[k] { rows.append(r); k += 1; r += 1 }
                        else if pks[r] < keys[k] { r += 1 }
                        else { return true }
                    }
                    return false
                }
            }
            if missing { throw PayloadError("row \(table.layout.entity.name) #\(keys[k]) is missing") }
            if !rows.isEmpty { result.append((c, rows)) }
        }
        guard k == keys.count else { throw PayloadError("row \(table.layout.entity.name) #\(keys[k]) is missing") }
        return result
    }

    /// Whether `keys[from...]` starts with `pks` (a byte comparison).
    private static func same(_ pks: [Int64], _ keys: [Int64], from: Int) -> Bool {
        pks.withUnsafeBytes { a in
            keys.withUnsafeBytes { b in
                memcmp(a.baseAddress!, b.baseAddress! + from * MemoryLayout<Int64>.stride, a.count) == 0
            }
        }
    }

    /// Applies `assignments` to the rows with `keys` (sorted), computing each new value from
    /// the row's values before the update, and stamps them with `version`.
    ///
    /// - Throws: `StrataError` `.typeMismatch` when a computed value does not fit its
    ///   attribute (an integer overflowing `int16`, say); ``PayloadError`` for missing rows.
    mutating func bulkUpdate(_ keys: [Int64], assignments: [ResolvedAssignment], version: UInt64) throws {
        try bulkUpdate(rowsByChunk(keys).map { (chunk: $0.chunk, rows: $0.rows) }, assignments: assignments, version: version)
    }

    /// Applies `assignments` to every row, as ``bulkUpdate(_:assignments:version:)`` does
    /// with every key.
    mutating func bulkUpdateAll(assignments: [ResolvedAssignment], version: UInt64) throws {
        try bulkUpdate(table.chunks.indices.map { (chunk: $0, rows: nil) }, assignments: assignments, version: version)
    }

    /// Applies `assignments` to the listed rows of each chunk; `nil` rows: every row of the
    /// chunk, whose list is made when the chunk's turn comes (lists for every chunk made up
    /// front would be eight bytes a row, all alive at once: 80 MB of new memory at 10M rows).
    private mutating func bulkUpdate(_ rowsByChunk: [(chunk: Int, rows: [Int]?)], assignments: [ResolvedAssignment],
                                     version: UInt64) throws {
        let properties = table.layout.properties
        for (chunkIndex, listed) in rowsByChunk {
            let rows = listed ?? Array(0..<table.chunks[chunkIndex].count)
            guard !rows.isEmpty else { continue }
            var columns = table.chunks[chunkIndex].columns
            let before = table.chunks[chunkIndex]
            func check(_ value: AttributeValue, _ target: EntityLayout.Property, row: Int) throws {
                if let type = target.type, !value.conforms(to: type) || (value.isNull && !target.isOptional) {
                    throw StrataError(.typeMismatch, "The batch update would store \(value.isNull ? "nil" : "a value out of range") in \(table.layout.entity.name).\(target.name) (\(type.rawValue)\(target.isOptional ? "" : ", required")) for object \(before.primaryKeys[row]); nothing was written.", entity: table.layout.entity.name, key: target.name)
                }
            }
            // Constants are checked once and written straight into their columns; computed
            // values go through `AttributeValue`s, each from the row's values before the update.
            var computed: [(column: Int, values: [AttributeValue])] = []
            var constants: [(column: Int, value: AttributeValue)] = []
            for assignment in assignments {
                let target = properties[assignment.property]
                if assignment.kind == .constant {
                    try check(assignment.value, target, row: rows[0])
                    constants.append((target.column, assignment.value))
                    continue
                }
                let values = try rows.map { row -> AttributeValue in
                    let value: AttributeValue
                    switch assignment.kind {
                    case .constant: value = assignment.value
                    case .copy: value = before.columns[properties[assignment.source].column].value(at: row, type: properties[assignment.source].type)
                    case .not:
                        let current = before.columns[properties[assignment.source].column].value(at: row, type: .bool)
                        value = current.isNull ? .null : .bool(!current.boolValue)
                    case .add:
                        let current = before.columns[properties[assignment.source].column].value(at: row, type: properties[assignment.source].type)
                        switch (current, assignment.value) {
                        case (.null, _): value = .null
                        case (.int(let x), .int(let y)):
                            let (sum, overflow) = x.addingReportingOverflow(y)
                            value = overflow ? .double(.infinity) : .int(sum)
                        case (.double(let x), _): value = .double(x + assignment.value.doubleValue)
                        default: value = .null
                        }
                    }
                    try check(value, target, row: row)
                    return value
                }
                computed.append((target.column, values))
            }
            columns[EntityLayout.versionColumn].fill(rows, with: .int(Int64(version)))
            for (column, values) in computed { columns[column].setMany(rows, to: values) }
            for (column, value) in constants { columns[column].fill(rows, with: value) }
            table.chunks[chunkIndex] = TableChunk(columns: columns)
        }
    }

    /// Sets `property` to nil in the rows with `keys` (sorted), stamping them with `version`.
    mutating func bulkNullify(_ keys: [Int64], property: Int, version: UInt64) throws {
        let column = table.layout.properties[property].column
        for (chunkIndex, rows) in try rowsByChunk(keys) {
            if let undecoded = table.chunks[chunkIndex].removingUndecoded(rows) {
                table.chunks[chunkIndex] = undecoded
                continue
            }
            var columns = table.chunks[chunkIndex].columns
            columns[EntityLayout.versionColumn].fill(rows, with: .int(Int64(version)))
            columns[column].fill(rows, with: .null)
            table.chunks[chunkIndex] = TableChunk(columns: columns)
        }
    }

    /// Removes the rows with `keys` (sorted).
    mutating func bulkDelete(_ keys: [Int64]) throws {
        for (chunkIndex, rows) in try rowsByChunk(keys) {
            if let undecoded = table.chunks[chunkIndex].removingUndecoded(rows) {
                table.chunks[chunkIndex] = undecoded
                continue
            }
            var columns = table.chunks[chunkIndex].columns
            for c in columns.indices { columns[c].remove(rows: rows) }
            table.chunks[chunkIndex] = TableChunk(columns: columns)
        }
        table.chunks.removeAll { $0.count == 0 }
        table.chunkFirstKeys = table.chunks.map(\.firstKey)
        table.rowCount = table.chunks.reduce(0) { $0 + $1.count }
    }
}

extension ColumnChunk {
    /// Sets `values[i]` at `rows[i]` for every `i`, taking the column's storage out once.
    mutating func setMany(_ rows: [Int], to values: [AttributeValue]) {
        if validity != nil || values.contains(where: \.isNull) {
            var v = validity ?? [Bool](repeating: true, count: count)
            validity = nil
            for (i, row) in rows.enumerated() { v[row] = !values[i].isNull }
            validity = v
        }
        switch self.values {
        case .bool(var v):
            self.values = .bool([])
            for (i, row) in rows.enumerated() { v[row] = values[i].boolValue }
            self.values = .bool(v)
        case .int64(var v):
            self.values = .int64([])
            for (i, row) in rows.enumerated() { v[row] = values[i].int64Value }
            self.values = .int64(v)
        case .double(var v):
            self.values = .double([])
            for (i, row) in rows.enumerated() { v[row] = values[i].doubleValue }
            self.values = .double(v)
        case .bytes:
            for (i, row) in rows.enumerated() { set(values[i], at: row) }
        }
    }

    /// Sets every row of the sorted, distinct `rows` to `value` (already type-checked); a
    /// column whose every row is set gets a fresh array.
    mutating func fill(_ rows: [Int], with value: AttributeValue) {
        let whole = rows.count == count
        let present = !value.isNull
        if validity != nil || !present {
            var v = validity ?? [Bool](repeating: true, count: count)
            validity = nil
            Self.fill(&v, rows, with: present, whole: whole)
            validity = v
        }
        // Each case empties the column first so `v` is uniquely referenced and set in place.
        switch self.values {
        case .bool(var v):
            self.values = .bool([])
            Self.fill(&v, rows, with: value.boolValue, whole: whole)
            self.values = .bool(v)
        case .int64(var v):
            self.values = .int64([])
            Self.fill(&v, rows, with: value.int64Value, whole: whole)
            self.values = .int64(v)
        case .double(var v):
            self.values = .double([])
            Self.fill(&v, rows, with: value.doubleValue, whole: whole)
            self.values = .double(v)
        case .bytes:
            for row in rows { set(value, at: row) }
        }
    }

    /// Sets `column[row] = x` for every row of `rows`; when `whole`, replaces the column with a
    /// fresh array of `x` instead.
    private static func fill<T>(_ column: inout [T], _ rows: [Int], with x: T, whole: Bool) {
        if whole {
            column = [T](repeating: x, count: column.count)
        } else {
            for row in rows { column[row] = x }
        }
    }
}
