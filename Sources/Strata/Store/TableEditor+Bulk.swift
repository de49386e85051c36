internal import StrataStorage

extension TableEditor {
    /// For sorted `keys`, the rows of each chunk that hold them (a merge walk).
    ///
    /// - Throws: ``PayloadError`` when a key is not in the table.
    func rowsByChunk(_ keys: [Int64]) throws -> [(chunk: Int, rows: [Int])] {
        var result: [(Int, [Int])] = []
        var k = 0
        for (c, chunk) in table.chunks.enumerated() where k < keys.count {
            let pks = chunk.primaryKeys
            var rows: [Int] = []
            var r = 0
            while k < keys.count, r < pks.count {
                if pks[r] == keys[k] { rows.append(r); k += 1; r += 1 }
                else if pks[r] < keys[k] { r += 1 }
                else { throw PayloadError("row \(table.layout.entity.name) #\(keys[k]) is missing") }
            }
            if !rows.isEmpty { result.append((c, rows)) }
        }
        guard k == keys.count else { throw PayloadError("row \(table.layout.entity.name) #\(keys[k]) is missing") }
        return result
    }

    /// Applies `assignments` to the rows with `keys` (sorted), computing each new value from
    /// the row's values before the update, and stamps them with `version`.
    ///
    /// - Throws: `StrataError` `.typeMismatch` when a computed value does not fit its
    ///   attribute (an integer overflowing `int16`, say); ``PayloadError`` for missing rows.
    mutating func bulkUpdate(_ keys: [Int64], assignments: [ResolvedAssignment], version: UInt64) throws {
        let properties = table.layout.properties
        for (chunkIndex, rows) in try rowsByChunk(keys) {
            var columns = table.chunks[chunkIndex].columns
            let before = table.chunks[chunkIndex]
            var newValues: [[AttributeValue]] = assignments.map { _ in [] }
            for (a, assignment) in assignments.enumerated() {
                let target = properties[assignment.property]
                newValues[a] = try rows.map { row -> AttributeValue in
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
                    if let type = target.type, !value.conforms(to: type) || (value.isNull && !target.isOptional) {
                        throw StrataError(.typeMismatch, "The batch update would store \(value.isNull ? "nil" : "a value out of range") in \(table.layout.entity.name).\(target.name) (\(type.rawValue)\(target.isOptional ? "" : ", required")) for object \(before.primaryKeys[row]); nothing was written.", entity: table.layout.entity.name, key: target.name)
                    }
                    return value
                }
            }
            columns[EntityLayout.versionColumn].setMany(rows, to: [AttributeValue](repeating: .int(Int64(version)), count: rows.count))
            for (a, assignment) in assignments.enumerated() {
                columns[properties[assignment.property].column].setMany(rows, to: newValues[a])
            }
            table.chunks[chunkIndex] = TableChunk(columns: columns)
        }
    }

    /// Sets `property` to nil in the rows with `keys` (sorted), stamping them with `version`.
    mutating func bulkNullify(_ keys: [Int64], property: Int, version: UInt64) throws {
        let column = table.layout.properties[property].column
        for (chunkIndex, rows) in try rowsByChunk(keys) {
            var columns = table.chunks[chunkIndex].columns
            columns[EntityLayout.versionColumn].setMany(rows, to: [AttributeValue](repeating: .int(Int64(version)), count: rows.count))
            columns[column].setMany(rows, to: [AttributeValue](repeating: .null, count: rows.count))
            table.chunks[chunkIndex] = TableChunk(columns: columns)
        }
    }

    /// Removes the rows with `keys` (sorted).
    mutating func bulkDelete(_ keys: [Int64]) throws {
        for (chunkIndex, rows) in try rowsByChunk(keys) {
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
}
