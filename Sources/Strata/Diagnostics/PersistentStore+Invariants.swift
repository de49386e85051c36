import Foundation
import StrataStorage

/// What ``PersistentStore/checkInvariants()`` found wrong: every broken invariant, each
/// naming the entity, key and column involved (never the values).
package struct InvariantViolation: Error, Sendable, CustomStringConvertible {
    /// One line per broken invariant.
    package var problems: [String]

    package var description: String {
        "\(problems.count) store invariant(s) broken:\n" + problems.prefix(50).map { "  - \($0)" }.joined(separator: "\n")
            + (problems.count > 50 ? "\n  … and \(problems.count - 50) more" : "")
    }
}

extension PersistentStore {
    /// Whether tests asked for invariant checks after each commit: the environment variable
    /// `STRATA_CHECK_INVARIANTS` is set to anything but `0` (test suites that rely on it
    /// default it on themselves).
    package static var invariantChecksRequested: Bool {
        guard let raw = ProcessInfo.processInfo.environment["STRATA_CHECK_INVARIANTS"] else { return false }
        return raw != "0" && !raw.isEmpty
    }

    /// Checks the store's internal invariants and throws ``InvariantViolation`` listing every
    /// one that does not hold:
    ///
    /// 1. Per entity: chunks non-empty, their first keys and row count in step, every
    ///    column as long as the primary-key column, primary keys strictly ascending and
    ///    unique across chunks.
    /// 2. Row versions are between 1 and the version's LSN.
    /// 3. Every to-one foreign key points at an existing row of its destination, and a
    ///    one-to-one pair points back (to-many sides are derived from the foreign keys).
    /// 4. The version's LSN is the log's last LSN, and published ≤ head (LSNs only grow).
    /// 5. With `replay` (the default), replaying the directory's snapshot and log in a second,
    ///    read-only store gives exactly the in-memory state: same keys, versions and values.
    ///
    /// Commits wait while it runs (it holds the writer lock and waits for the head version to
    /// be durable first). Call it when no checkpoint is running, or pass `replay: false`.
    ///
    /// - Complexity: O(rows × columns), plus a full open of the directory with `replay`.
    package func checkInvariants(replay: Bool = true) throws {
        // Placeholder columns of a chunk that failed its first decode break the invariants:
        // the damage is what to report.
        try checkingDamageOfAnyError { try checkInvariantsOfReadRows(replay: replay) }
    }

    private func checkInvariantsOfReadRows(replay: Bool) throws {
        var problems: [String] = []
        try writer.withLock { state in
            let head = state.head
            let publishedLSN = currentVersion.lsn
            if publishedLSN > head.lsn {
                problems.append("published version \(publishedLSN) is ahead of the head version \(head.lsn)")
            }
            if engine.failure == nil {
                try engine.waitUntilDurable(head.lsn)
                if engine.lastLSN != head.lsn {
                    problems.append("the log's last LSN is \(engine.lastLSN) but the head version is \(head.lsn)")
                }
            }
            problems += Self.structuralProblems(of: head, layouts: layouts, nextPrimaryKeys: state.nextPrimaryKeys)
            if replay, problems.isEmpty {
                problems += try replayProblems(against: head)
            }
        }
        if !problems.isEmpty { throw InvariantViolation(problems: problems) }
    }

    /// Runs ``checkInvariants(replay:)`` when ``invariantChecksRequested`` (or `force`).
    package func checkInvariantsIfRequested(force: Bool = false) throws {
        if force || Self.invariantChecksRequested { try checkInvariants() }
    }

    static func structuralProblems(of version: StoreVersion, layouts: [EntityLayout],
                                   nextPrimaryKeys: [Int64]? = nil) -> [String] {
        var problems: [String] = []
        guard version.tables.count == layouts.count else {
            return ["the version has \(version.tables.count) tables for \(layouts.count) entities"]
        }
        for (index, table) in version.tables.enumerated() {
            let name = layouts[index].entity.name
            if table.chunks.map(\.firstKey) != table.chunkFirstKeys {
                problems.append("\(name): the chunk first-key index is out of step with the chunks")
            }
            if table.rowCount != table.chunks.reduce(0, { $0 + $1.count }) {
                problems.append("\(name): rowCount \(table.rowCount) differs from the chunks' rows")
            }
            var previous: Int64?
            for (c, chunk) in table.chunks.enumerated() {
                if chunk.count == 0 { problems.append("\(name): chunk #\(c) is empty") }
                if chunk.columns.count != table.layout.table.columns.count {
                    problems.append("\(name): chunk #\(c) has \(chunk.columns.count) columns, the layout \(table.layout.table.columns.count)")
                    continue
                }
                for (k, column) in chunk.columns.enumerated() {
                    if column.count != chunk.count || (column.validity.map { $0.count != chunk.count } ?? false) {
                        problems.append("\(name): chunk #\(c) column \(table.layout.table.columns[k].name) has \(column.count) values for \(chunk.count) rows")
                    }
                }
                for (row, key) in chunk.primaryKeys.enumerated() {
                    if let previous, key <= previous {
                        problems.append("\(name): primary key \(key) (chunk #\(c) row \(row)) is not above the previous key \(previous)")
                    }
                    previous = key
                    let rowVersion = UInt64(bitPattern: chunk.versions[row])
                    if rowVersion == 0 || rowVersion > version.lsn {
                        problems.append("\(name) \(key): row version \(rowVersion) is outside 1…\(version.lsn)")
                    }
                }
            }
            if let nextPrimaryKeys, let last = previous, nextPrimaryKeys.indices.contains(index), nextPrimaryKeys[index] <= last {
                problems.append("\(name): the next primary key \(nextPrimaryKeys[index]) is not above the largest key \(last)")
            }
        }
        guard problems.isEmpty else { return problems }
        // Foreign keys.
        for (index, table) in version.tables.enumerated() {
            let layout = layouts[index]
            for property in layout.properties {
                guard let destination = property.destination else { continue }
                let relationship = layout.entity.relationship(named: property.name)
                let inverse = relationship.flatMap { layouts[destination].propertyIndex[$0.inverse] }
                let target = version.tables[destination]
                for chunk in table.chunks {
                    let column = chunk.columns[property.column]
                    guard case .int64(let values) = column.values else {
                        problems.append("\(layout.entity.name).\(property.name): the foreign-key column is not int64")
                        break
                    }
                    for (row, value) in values.enumerated() where column.validity?[row] ?? true {
                        let key = chunk.primaryKeys[row]
                        guard let location = target.locate(value) else {
                            problems.append("\(layout.entity.name) \(key).\(property.name) points at \(layouts[destination].entity.name) \(value), which does not exist")
                            continue
                        }
                        if let inverse, target.value(inverse, at: location) != .int(key) {
                            problems.append("\(layout.entity.name) \(key).\(property.name) points at \(layouts[destination].entity.name) \(value), whose \(layouts[destination].properties[inverse].name) does not point back")
                        }
                    }
                }
            }
        }
        return problems
    }

    /// Opens the directory read-only in a second store and compares its state with `head`.
    private func replayProblems(against head: StoreVersion) throws -> [String] {
        var readOnly = options
        readOnly.storage.readOnly = true
        readOnly.automaticCheckpointBytes = nil
        let replayed = try PersistentStore.open(at: directory, schema: nil, options: readOnly)
        defer { try? replayed.close() }
        return try replayed.checkingDamageOfAnyError { compare(head, with: replayed) }
    }

    /// The differences between `head` and the newest version of `replayed`.
    private func compare(_ head: StoreVersion, with replayed: PersistentStore) -> [String] {
        let other = replayed.currentVersion
        var problems: [String] = []
        if other.lsn != head.lsn {
            problems.append("replaying snapshot + log reaches LSN \(other.lsn), memory is at \(head.lsn)")
        }
        for (index, table) in head.tables.enumerated() {
            let name = layouts[index].entity.name
            guard replayed.layouts.indices.contains(index), replayed.layouts[index].entity.name == name else {
                problems.append("\(name): missing from the replayed store"); continue
            }
            let mine = Self.rows(of: table), theirs = Self.rows(of: other.tables[index])
            if mine.count != theirs.count {
                problems.append("\(name): \(mine.count) rows in memory, \(theirs.count) after replay")
            }
            let theirsByKey = Dictionary(theirs.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
            for row in mine {
                guard let replayedRow = theirsByKey[row.key] else {
                    problems.append("\(name) \(row.key): in memory, missing after replay"); continue
                }
                if row.version != replayedRow.version {
                    problems.append("\(name) \(row.key): version \(row.version) in memory, \(replayedRow.version) after replay")
                }
                for (p, property) in layouts[index].properties.enumerated()
                where !Self.sameValue(row.values[p], replayedRow.values[p]) {
                    problems.append("\(name) \(row.key).\(property.name): differs after replay")
                }
            }
            let mineKeys = Set(mine.map(\.key))
            for row in theirs where !mineKeys.contains(row.key) {
                problems.append("\(name) \(row.key): present after replay, missing in memory")
            }
        }
        return problems
    }

    private static func rows(of table: EntityTable) -> [(key: Int64, version: UInt64, values: [AttributeValue])] {
        var out: [(Int64, UInt64, [AttributeValue])] = []
        for (c, chunk) in table.chunks.enumerated() {
            for (row, key) in chunk.primaryKeys.enumerated() {
                out.append((key, UInt64(bitPattern: chunk.versions[row]),
                            table.layout.properties.indices.map { table.value($0, at: (c, row)) }))
            }
        }
        return out
    }

    private static func sameValue(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
        return a == b
    }
}
